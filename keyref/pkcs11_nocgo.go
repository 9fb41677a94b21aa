//go:build !cgo

package keyref

import "fmt"

// PKCS11Supported reports whether this build can open pkcs11: references
// (it was built with cgo).
const PKCS11Supported = false

// openPKCS11 refuses: PKCS#11 modules are C libraries, loaded through cgo.
func openPKCS11(r *Ref, _ *Options) (*Key, error) {
	return nil, fmt.Errorf("%s: %w", r, ErrNoPKCS11)
}
