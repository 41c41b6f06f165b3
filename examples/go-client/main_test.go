package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/examples/internal/exampletest"
)

// TestGoClient runs the example against a real desk serve: the uploaded
// project's tests pass in the sandbox, and the run's changes (Python's
// bytecode cache) are listed.
func TestGoClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	srv := exampletest.Start(t)
	srv.NeedSandbox(t, ctx, "go-client-example")
	var out bytes.Buffer
	if err := run(ctx, srv.Client, "go-client-example", "project", &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"uploaded 2 files; tests: completed, exit 0", "test_empty (test_calc.MeanTest", "Ran 2 tests", "OK",
		"created: /workspace/project/__pycache__/calc.cpython-"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
