package cli

import (
	"fmt"
	"io/fs"
)

// KeyFileWarning returns the warning every binary prints when a private
// key file at path, with file info st, can be read by users other than its
// owner (any group or other permission bit), or "" when it cannot.
func KeyFileWarning(path string, st fs.FileInfo) string {
	if st.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("private key %s is readable by other users (mode %04o); chmod 600 it", path, st.Mode().Perm())
}
