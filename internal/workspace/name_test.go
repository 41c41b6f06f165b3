package workspace_test

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/workspace"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name   string
		reason string // substring of the error; "" when the name is valid
	}{
		{"a", ""},
		{"0", ""},
		{"my-workspace", ""},
		{"ws_1.test-2", ""},
		{"a.b.c", ""},
		{"x-", ""},
		{"a.", ""},
		{"console", ""}, // only the exact device stem is reserved
		{"com10", ""},
		{strings.Repeat("a", 63), ""},
		{"", "empty"},
		{strings.Repeat("a", 64), "64 bytes long"},
		{".", `starts with '.'`},
		{"..", `starts with '.'`},
		{".hidden", `starts with '.'`},
		{"-flag", `starts with '-'`},
		{"_x", `starts with '_'`},
		{"a..b", `contains ".."`},
		{"a/b", `character '/'`},
		{"../etc", `starts with '.'`},
		{"a/../../b", `character '/'`},
		{"/abs", `character '/'`},
		{`a\b`, `character '\\'`},
		{"a b", `character ' '`},
		{"a\x00b", `character '\x00'`},
		{"a\nb", `character '\n'`},
		{"Work", "upper-case letter 'W'"},
		{"wOrk", "upper-case letter 'O' at byte 1"},
		{"é", "character 'é' at byte 0"},
		{"a\xff", "byte 0xff at byte 1"},
		{"a\u00a0", `character '\u00a0'`},
		{"a:b", `character ':'`},
		{"a*", `character '*'`},
		{"con", `"con" is a reserved name`},
		{"nul.txt", `"nul" is a reserved name`},
		{"com1", `"com1" is a reserved name`},
		{"lpt9.x.y", `"lpt9" is a reserved name`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := workspace.ValidateName(tc.name)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("ValidateName(%q) = %v, want nil", tc.name, err)
				}
				return
			}
			if !errors.Is(err, workspace.ErrBadName) {
				t.Fatalf("ValidateName(%q) = %v, want ErrBadName", tc.name, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.reason) || !strings.Contains(msg, workspace.NameRule) {
				t.Errorf("ValidateName(%q) = %q, want the reason %q and the rule", tc.name, msg, tc.reason)
			}
		})
	}
}

func TestFile(t *testing.T) {
	got, err := workspace.File("/data", "ws-1")
	if err != nil || got != "/data/workspaces/ws-1.db" {
		t.Fatalf("File = %q, %v; want /data/workspaces/ws-1.db", got, err)
	}
	if got := workspace.Dir("/data"); got != "/data/workspaces" {
		t.Errorf("Dir = %q", got)
	}
	if _, err := workspace.File("/data", "../x"); !errors.Is(err, workspace.ErrBadName) {
		t.Errorf("File(../x) = %v, want ErrBadName", err)
	}
}

func TestNameOf(t *testing.T) {
	tests := []struct {
		file, name string
		ok         bool
	}{
		{"ws.db", "ws", true},
		{"a.b.db", "a.b", true},
		{"ws.db-wal", "", false},
		{"ws.db-shm", "", false},
		{"ws", "", false},
		{".db", "", false},
		{"..db", "", false},
		{"Ws.db", "", false},
		{"con.db", "", false},
		{".tmp.db", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			name, ok := workspace.NameOf(tc.file)
			if name != tc.name || ok != tc.ok {
				t.Errorf("NameOf(%q) = %q, %v; want %q, %v", tc.file, name, ok, tc.name, tc.ok)
			}
		})
	}
}

// FuzzValidateName checks that every accepted name maps to a file directly
// inside the workspaces directory, and that the validator agrees with the
// documented rule (NamePattern, no "..", no reserved stem).
func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"a", "ws-1", "..", ".", "a/b", "../../etc/passwd", "a\x00", "con.db", "A", strings.Repeat("z", 63)} {
		f.Add(s)
	}
	re := regexp.MustCompile(workspace.NamePattern)
	reserved := regexp.MustCompile(`^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)`)
	const data = "/srv/desk-data"
	dir := workspace.Dir(data)
	f.Fuzz(func(t *testing.T, name string) {
		err := workspace.ValidateName(name)
		path, ferr := workspace.File(data, name)
		if (err == nil) != (ferr == nil) {
			t.Fatalf("ValidateName(%q) = %v but File says %v", name, err, ferr)
		}
		rule := re.MatchString(name) && !strings.Contains(name, "..") && !reserved.MatchString(name)
		if rule != (err == nil) {
			t.Fatalf("ValidateName(%q) = %v, but the documented rule says valid=%v", name, err, rule)
		}
		if err != nil {
			if !errors.Is(err, workspace.ErrBadName) {
				t.Fatalf("ValidateName(%q) = %v, not ErrBadName", name, err)
			}
			return
		}
		if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) || name[0] == '.' {
			t.Fatalf("accepted %q, which is not a plain local name", name)
		}
		if filepath.Dir(path) != dir || filepath.Base(path) != name+workspace.FileExt || filepath.Clean(path) != path {
			t.Fatalf("File(%q) = %q, not directly inside %s", name, path, dir)
		}
		if rel, err := filepath.Rel(dir, path); err != nil || rel != name+workspace.FileExt {
			t.Fatalf("File(%q) = %q: relative to %s it is %q (%v)", name, path, dir, rel, err)
		}
		if back, ok := workspace.NameOf(filepath.Base(path)); !ok || back != name {
			t.Fatalf("NameOf(File(%q)) = %q, %v", name, back, ok)
		}
	})
}
