package tools

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestExec_Egress: the exec tool's egress narrows the execution's network
// (a layer in Exec's context); a malformed one is refused before anything
// runs.
func TestExec_Egress(t *testing.T) {
	var mu sync.Mutex
	var seen []egress.Layer
	net := func(ctx context.Context, job *run.Job) http.RoundTripper {
		mu.Lock()
		seen = egress.LayersFrom(ctx)
		mu.Unlock()
		return nil
	}
	ctx := context.Background()
	fsys, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if err := fsys.MkdirAll(ctx, "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	rt, err := run.Open(ctx, fsys, map[string]run.Backend{"shell": shell.New(shell.Options{})}, run.Options{DefaultBackend: "shell", Network: net})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	set, err := New(NewState(fsys), rt, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Exec(context.Background(), ExecInput{Command: "echo hi", Egress: "allow a.example.com:443"}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	l := seen
	mu.Unlock()
	if len(l) != 1 || l[0].Source != egress.SourceExecution || l[0].Policy.String() != "allow a.example.com:443" {
		t.Fatalf("layers %+v", l)
	}
	_, err = set.Exec(context.Background(), ExecInput{Command: "echo hi", Egress: "maybe"}, nil)
	var te *Error
	if !errors.As(err, &te) || te.Code != CodeInvalid {
		t.Fatalf("a bad egress: %v", err)
	}
}
