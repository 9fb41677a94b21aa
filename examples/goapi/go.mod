module example.com/goapi

go 1.26.0

require github.com/mcpres/mcpres v0.0.0-00010101000000-000000000000

require (
	github.com/secure-systems-lab/go-securesystemslib v0.11.1 // indirect
	github.com/transparency-dev/formats v0.1.1 // indirect
	github.com/transparency-dev/merkle v0.0.2 // indirect
	golang.org/x/crypto v0.55.0 // indirect
	golang.org/x/mod v0.43.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

replace github.com/mcpres/mcpres => ../..
