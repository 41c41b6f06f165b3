package jsvm

import (
	"context"
	_ "embed"
	"testing"
	"time"
)

//go:embed testdata/parity.mjs
var parityModule string

// TestNodeParity runs testdata/parity.mjs (console and util.inspect
// formatting, util, Buffer, TextEncoder/TextDecoder, atob/btoa,
// structuredClone, URL and URLSearchParams, path, timers and microtasks,
// process, events, assert, crypto, language features) under Node and under
// the js backend, and compares what they print, line by line.
func TestNodeParity(t *testing.T) {
	want, werr, code := runNode(t, t.TempDir(), parityModule, "", nil)
	if code != 0 || werr != "" {
		t.Fatalf("node: exit %d, stderr:\n%s", code, werr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := runJS(ctx, sharedBackend(t), newStore(t, nil), job{src: parityModule})
	if r.err != nil || r.stderr != "" {
		t.Fatalf("desk: %v, stderr:\n%s", r.err, r.stderr)
	}
	diffLines(t, "parity.mjs", r.stdout, want)
}
