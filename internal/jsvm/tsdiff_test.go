package jsvm

import "testing"

// tsForNode returns src, TypeScript, as the JavaScript Node runs.
func tsForNode(t *testing.T, dir, src string) string {
	t.Fatal("TypeScript cases need esbuild")
	return ""
}
