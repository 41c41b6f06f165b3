package jsvm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// The TypeScript cases of the differential table (names ending in ".ts"):
// the oracle is Node running what esbuild's bundler makes of main.ts and
// the .ts files it imports (Node 20 cannot strip types itself: its
// --experimental-strip-types came in 22.6), compiled with the same target
// as the backend's transform. desk runs main.ts's source directly.

// tsBundleForNode writes main.ts (src) in dir, bundles it with the files
// it imports for Node, and returns the bundle's path (outside dir).
func tsBundleForNode(t *testing.T, dir, src string) string {
	t.Helper()
	entry := filepath.Join(dir, "main.ts")
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "main.mjs")
	r := api.Build(api.BuildOptions{
		EntryPoints: []string{entry},
		Bundle:      true,
		Platform:    api.PlatformNode,
		Format:      api.FormatESModule,
		Target:      tsTarget,
		Outfile:     out,
		Write:       true,
		LogLevel:    api.LogLevelSilent,
		Packages:    api.PackagesExternal,
	})
	if len(r.Errors) > 0 {
		var msgs []string
		for _, m := range r.Errors {
			msgs = append(msgs, m.Text)
		}
		t.Fatalf("esbuild for node: %s", strings.Join(msgs, "; "))
	}
	return out
}
