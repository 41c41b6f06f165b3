package fsio

import (
	"context"
	"fmt"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

// StagingPrefix begins the name of every import's staging directory, which
// is made at the workspace's root: "/.desk-import-" and 16 hexadecimal
// digits.
const StagingPrefix = ".desk-import-"

// stagingPage is how many root entries CleanStaging reads at a time.
const stagingPage = 256

// CleanStaging removes the staging directories of imports that never ended
// (a `desk fs import` killed with -9 leaves its staging tree behind; a
// failed one removes its own). Call it when the store is opened for writing,
// before any import runs: every staging directory is then stale, since the
// store is opened by one process at a time. It reads only the root's entries
// from StagingPrefix on (the root is listed in byte order), so its work is
// bounded by what it removes, and it removes only directories whose name is
// StagingPrefix and 16 hexadecimal digits. It returns how many it removed.
func CleanStaging(ctx context.Context, fsys *vfs.FS) (int, error) {
	removed := 0
	after := StagingPrefix
	for {
		page, err := fsys.ReadDirPage(ctx, "/", after, stagingPage)
		if err != nil {
			return removed, fmt.Errorf("clean import staging: %w", err)
		}
		for _, de := range page {
			if !strings.HasPrefix(de.Name, StagingPrefix) {
				return removed, nil
			}
			if de.Mode&vfs.S_IFMT != vfs.S_IFDIR || !isStagingName(de.Name) {
				continue
			}
			if err := fsys.RemoveAll(ctx, "/"+de.Name); err != nil {
				return removed, fmt.Errorf("clean import staging: %w", err)
			}
			removed++
		}
		if len(page) < stagingPage {
			return removed, nil
		}
		after = page[len(page)-1].Name
	}
}

// isStagingName reports whether name is StagingPrefix and 16 hexadecimal
// digits, as beginImport makes them.
func isStagingName(name string) bool {
	hex := strings.TrimPrefix(name, StagingPrefix)
	if len(hex) != 16 {
		return false
	}
	for _, c := range hex {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
