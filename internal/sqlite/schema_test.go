package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClaim: a new file is marked as the schema's, reopened it is accepted,
// and a file of another application or of a newer version is refused and
// left as it was.
func TestClaim(t *testing.T) {
	dir := t.TempDir()
	s := Schema{AppID: 0x64657374, Version: 2, SQL: "CREATE TABLE IF NOT EXISTS t (x)", What: "test index"}
	claim := func(name string, s Schema) error {
		c, err := Open(filepath.Join(dir, name), false)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.Claim(s)
	}
	if err := claim("a.db", s); err != nil {
		t.Fatalf("new file: %v", err)
	}
	if err := claim("a.db", s); err != nil {
		t.Fatalf("reopened: %v", err)
	}
	older := s
	older.Version = 1
	if err := claim("a.db", older); err == nil || !strings.Contains(err.Error(), "test index schema version 2 is newer than this program's 1") {
		t.Errorf("newer version: %v", err)
	}
	other := s
	other.AppID, other.What = 7, "other index"
	if err := claim("a.db", other); err == nil || !strings.Contains(err.Error(), "not a desk other index") {
		t.Errorf("another application's file: %v", err)
	}
	c, err := Open(filepath.Join(dir, "b.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec("CREATE TABLE foreign_data (y)"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := claim("b.db", s); err == nil || !strings.Contains(err.Error(), "not a desk test index") {
		t.Errorf("a file with tables of its own: %v", err)
	}
}
