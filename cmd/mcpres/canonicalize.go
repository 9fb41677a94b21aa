package main

import (
	"encoding/base64"

	"github.com/mcpres/mcpres/canonjson"
	"github.com/mcpres/mcpres/internal/cli"
	"github.com/spf13/cobra"
)

func (a *app) canonicalizeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "canonicalize FILE",
		Short: "Print the mcp-res-json-utf16-v1 canonical bytes and SHA-256 of a JSON file",
		Long: `Read FILE with the strict reader and print
{"canonicalBase64":<base64 of the canonical bytes>,"sha256":<hex>}.
An unreadable file prints the MCP_RES_INPUT_INVALID object and exits 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, doc, err := canonjson.ReadFile(args[0])
			if err != nil {
				a.printInputInvalid(args[0], err, "json", false)
				return cli.Exit(exitInput)
			}
			b, err := canonjson.Canonical(doc)
			if err != nil {
				a.printInputInvalid(args[0], err, "json", false)
				return cli.Exit(exitInput)
			}
			a.printJSON("", canonjson.NewObject(
				canonjson.Member{Key: "canonicalBase64", Value: canonjson.NewString(base64.StdEncoding.EncodeToString(b))},
				canonjson.Member{Key: "sha256", Value: canonjson.NewString(canonjson.BytesDigest(b))},
			), false)
			return nil
		},
	}
}
