package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/vfs"
)

// MaxNameLen is the longest workspace name, in bytes.
const MaxNameLen = 63

// NameRule states the workspace name rule in words; errors for rejected names
// quote it.
const NameRule = `1 to 63 characters from a-z 0-9 "." "_" "-", starting with a letter or digit, ` +
	`no "..", and not a reserved name (con, prn, aux, nul, com0-com9, lpt0-lpt9, before any ".")`

// NamePattern is the regular expression every valid name matches. Matching it is
// necessary but not sufficient: ".." and reserved names are refused as well
// (see NameRule).
const NamePattern = `^[a-z0-9][a-z0-9._-]{0,62}$`

// ErrBadName is returned (wrapped, with the offending name and the reason) for a
// name that breaks NameRule.
var ErrBadName = errors.New("invalid workspace name")

// reserved are device names on Windows filesystems (also with any extension).
// They are refused so that a data directory can be copied to any filesystem.
var reserved = map[string]bool{"con": true, "prn": true, "aux": true, "nul": true}

func init() {
	for _, p := range []string{"com", "lpt"} {
		for d := '0'; d <= '9'; d++ {
			reserved[p+string(d)] = true
		}
	}
}

// ValidateName reports whether name is a valid workspace name. A nil result
// guarantees that name is one path element (no "/", not "." or "..", no
// leading "."), so File places the workspace directly inside the workspaces
// directory. The error wraps ErrBadName and says which part of NameRule failed.
func ValidateName(name string) error {
	bad := func(reason string) error {
		return fmt.Errorf("%w %q: %s (rule: %s)", ErrBadName, name, reason, NameRule)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > MaxNameLen:
		return bad(fmt.Sprintf("%d bytes long, more than %d", len(name), MaxNameLen))
	}
	for i, r := range name {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
		case r == '.' || r == '_' || r == '-':
			if i == 0 {
				return bad(fmt.Sprintf("starts with %q", r))
			}
		case 'A' <= r && r <= 'Z':
			return bad(fmt.Sprintf("upper-case letter %q at byte %d (names are lower case)", r, i))
		case r == utf8.RuneError:
			return bad(fmt.Sprintf("byte %#x at byte %d is not allowed", name[i], i))
		default:
			return bad(fmt.Sprintf("character %q at byte %d is not allowed", r, i))
		}
	}
	if strings.Contains(name, "..") {
		return bad(`contains ".."`)
	}
	if stem, _, _ := strings.Cut(name, "."); reserved[stem] {
		return bad(fmt.Sprintf("%q is a reserved name", stem))
	}
	return nil
}

// Dir is the directory of a data directory that holds the workspace files:
// <dataDir>/workspaces.
func Dir(dataDir string) string { return filepath.Join(dataDir, DirName) }

// DirName is the name of the workspaces directory inside a data directory.
const DirName = "workspaces"

// FileExt ends the name of every workspace database file: a workspace named n
// is stored in <dataDir>/workspaces/<n>.db, and SQLite keeps <n>.db-wal and
// <n>.db-shm beside it.
const FileExt = ".db"

// companions are the suffixes SQLite appends to a database file's name for its
// side files, and the store's chunk file. They belong to the workspace and
// are removed with it.
var companions = []string{"-wal", "-shm", "-journal", vfs.ChunkFileSuffix}

// File returns the database file of the workspace name in dataDir,
// <dataDir>/workspaces/<name>.db, after validating name.
func File(dataDir, name string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	return filepath.Join(Dir(dataDir), name+FileExt), nil
}

// NameOf returns the workspace name a file in the workspaces directory stands
// for, and false for anything that is not a workspace database file (a -wal or
// -shm file, a temporary file, a name that is not valid).
func NameOf(fileName string) (string, bool) {
	name, ok := strings.CutSuffix(fileName, FileExt)
	if !ok || ValidateName(name) != nil {
		return "", false
	}
	return name, true
}
