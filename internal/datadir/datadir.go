// Package datadir says where dbharness keeps its files on this machine. It
// is a leaf, so the results store and the database layer can both find
// the directory without depending on each other.
package datadir

import (
	"os"
	"path/filepath"
)

// Default is where dbharness keeps its default SQLite database and results
// store: $XDG_DATA_HOME/dbharness or ~/.local/share/dbharness.
func Default() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "dbharness")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "dbharness")
	}
	return filepath.Join(home, ".local", "share", "dbharness")
}
