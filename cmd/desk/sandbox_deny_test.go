package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestSandboxDeny: the server's data directory and its config file's
// directory join the sandbox's deny list, with glob characters quoted.
func TestSandboxDeny(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data[1]")
	cfg := filepath.Join(dir, "cfg", "desk.json")
	t.Setenv(envConfig, cfg)
	deny := sandboxDeny(data)
	for _, want := range []string{"/etc/shadow", filepath.Join(dir, `data\[1]`), filepath.Join(dir, "cfg", "desk.json")} {
		if !slices.Contains(deny, want) {
			t.Errorf("deny list lacks %s: %q", want, deny)
		}
	}
	t.Setenv(envConfig, "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	if deny := sandboxDeny(data); !slices.Contains(deny, filepath.Join(dir, "xdg", "desk")) {
		t.Errorf("deny list lacks the config directory: %q", deny)
	}
}
