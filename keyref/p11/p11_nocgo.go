//go:build !cgo

package p11

import (
	"fmt"

	"github.com/mcpres/mcpres/keyref"
)

// Supported reports whether this build opens PKCS#11 keys (it was
// built with cgo).
const Supported = false

// Open refuses: PKCS#11 modules are C libraries, loaded through cgo, and
// this build has none.
func Open(req *keyref.PKCS11Request) (keyref.Holder, error) {
	return nil, fmt.Errorf("%w: this build was made without cgo (CGO_ENABLED=0); build it with a C compiler: CGO_ENABLED=1 go install ./cmd/...", keyref.ErrNoPKCS11)
}
