package shell

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestNet_jobNet: curl and wget in a script send through the job's Net;
// without one they fail with run.ErrNoNetwork's message.
func TestNet_jobNet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hi from "+r.URL.Path+"\n")
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := New(Options{})
	script := "curl -sS " + srv.URL + "/a | tr a-z A-Z; wget -q -O- " + srv.URL + "/b; wget -q " + srv.URL + "/c.txt && cat c.txt"
	for _, c := range []struct {
		name           string
		nt             http.RoundTripper
		stdout, stderr string
	}{
		{"network", tr, "HI FROM /A\nhi from /b\nhi from /c.txt\n", ""},
		{"none", nil, "", run.ErrNoNetwork.Error()},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb testenv.SyncBuffer
			job := &run.Job{ID: "test", Backend: "shell", Source: script, Cwd: "/work",
				Env: map[string]string{"LANG": "C.UTF-8"}, Stdin: strings.NewReader(""),
				Stdout: &out, Stderr: &errb, FS: newStore(t, nil), Net: c.nt}
			_, err := b.Run(vfs.WithActor(ctx, "test"), job)
			if err != nil || out.String() != c.stdout || !strings.Contains(errb.String(), c.stderr) {
				t.Fatalf("err %v, stdout %q, stderr %q", err, out.String(), errb.String())
			}
		})
	}
}
