package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

func readAll[T any](t *testing.T, s *client.Stream[T]) []T {
	t.Helper()
	defer s.Close()
	var out []T
	for {
		v, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		out = append(out, v)
	}
}

func TestAPI_Executions(t *testing.T) {
	e := newEnv(t, envOpts{run: run.Options{MaxRunning: 2}})
	e.mkws("w")
	c := e.c
	t.Run("run and wait", func(t *testing.T) {
		r, err := c.Run(bg, "w", client.ExecRequest{Source: "echo hi\nerr oops\nwrite /out.txt data\ncat\nexit 3", Stdin: "in\n", ID: "first"})
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != "first" || r.Status != client.StatusCompleted || r.ExitCode != 3 || r.Stdout != "hi\nin\n" || r.Stderr != "oops\n" || r.Backend != "lines" {
			t.Fatalf("result = %+v", r)
		}
		if r.Changes == nil || len(r.Changes.Created) != 1 || r.Changes.Created[0] != "/out.txt" {
			t.Fatalf("changes = %+v", r.Changes)
		}
		if b, _ := c.ReadFile(bg, "w", "/out.txt"); string(b) != "data" {
			t.Fatalf("file = %q", b)
		}
		got, err := c.GetExecution(bg, "w", "first")
		if err != nil || got.Stdout != r.Stdout {
			t.Fatalf("get = %+v, %v", got, err)
		}
		_, err = c.Run(bg, "w", client.ExecRequest{Source: "echo", ID: "first"})
		wantCode(t, "id in use", err, 409, api.CodeExists)
	})
	t.Run("events ndjson and sse", func(t *testing.T) {
		ex, err := c.Exec(bg, "w", client.ExecRequest{Source: "lines 5\nerr e"})
		if err != nil || ex.Status != client.StatusRunning && ex.Status != client.StatusCompleted {
			t.Fatalf("exec = %+v, %v", ex, err)
		}
		s, err := c.Events(bg, "w", ex.ID, client.EventsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		evs := readAll(t, s)
		var out strings.Builder
		for _, ev := range evs {
			if ev.Type == client.EventStdout {
				out.Write(ev.Data)
			}
		}
		last := evs[len(evs)-1]
		if last.Type != client.EventExit || last.Exit.Status != client.StatusCompleted || out.String() != "0000000\n0000001\n0000002\n0000003\n0000004\n" {
			t.Fatalf("events = %+v", evs)
		}
		s, err = c.Events(bg, "w", ex.ID, client.EventsOptions{From: 3, Format: client.SSE})
		if err != nil {
			t.Fatal(err)
		}
		sse := readAll(t, s)
		if len(sse) != len(evs)-2 || sse[0].Seq != 3 || sse[len(sse)-1].Seq != last.Seq {
			t.Fatalf("sse from 3 = %+v (all %d)", sse, len(evs))
		}
		// Last-Event-ID over plain HTTP: resumes after it, ids are event numbers.
		st, body, _ := e.raw("GET", "/v1/workspaces/w/executions/"+ex.ID+"/events", e.admin, nil, "Accept", "text/event-stream", "Last-Event-ID", strconv.FormatUint(last.Seq-1, 10))
		if st != 200 || !strings.HasPrefix(string(body), "id: "+strconv.FormatUint(last.Seq, 10)+"\nevent: exit\ndata: {") {
			t.Fatalf("Last-Event-ID: %d %q", st, body)
		}
	})
	t.Run("live attach, kill, dispose", func(t *testing.T) {
		ex, err := c.Exec(bg, "w", client.ExecRequest{Source: "echo started\nblock", ID: "blocker"})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Events(bg, "w", ex.ID, client.EventsOptions{Format: client.SSE})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := s.Next()
		if err != nil || string(ev.Data) != "started\n" {
			t.Fatalf("first event = %+v, %v", ev, err)
		}
		wantCode(t, "dispose running", c.Dispose(bg, "w", ex.ID), 409, api.CodeRunning)
		if err := c.Kill(bg, "w", ex.ID, "SIGINT"); err != nil {
			t.Fatal(err)
		}
		rest := readAll(t, s)
		if x := rest[len(rest)-1].Exit; x == nil || x.Status != client.StatusCancelled || x.Signal != "SIGINT" {
			t.Fatalf("after kill = %+v", rest)
		}
		wantCode(t, "kill ended", c.Kill(bg, "w", ex.ID, ""), 409, api.CodeNotRunning)
		wantCode(t, "bad signal", c.Kill(bg, "w", "first", "SIGFOO"), 400, api.CodeInvalid)
		l, err := c.ListExecutions(bg, "w", client.ListExecutionsOptions{Status: client.StatusCancelled})
		if err != nil || len(l.Executions) != 1 || l.Executions[0].ID != "blocker" {
			t.Fatalf("list cancelled = %+v, %v", l, err)
		}
		if err := c.Dispose(bg, "w", ex.ID); err != nil {
			t.Fatal(err)
		}
		_, err = c.GetExecution(bg, "w", ex.ID)
		wantCode(t, "get disposed", err, 404, api.CodeNotFound)
		_, err = c.Events(bg, "w", ex.ID, client.EventsOptions{})
		wantCode(t, "events disposed", err, 404, api.CodeNotFound)
	})
	t.Run("bad requests", func(t *testing.T) {
		for _, tc := range []struct {
			req    client.ExecRequest
			status int
			code   string
		}{
			{client.ExecRequest{Source: "echo", Backend: "nope"}, 400, api.CodeUnknownBackend},
			{client.ExecRequest{Source: "echo", Timeout: "soon"}, 400, api.CodeInvalid},
			{client.ExecRequest{Source: "echo", Timeout: "100h"}, 400, api.CodeInvalid},
			{client.ExecRequest{Source: "echo", ID: "../x"}, 400, api.CodeInvalid},
			{client.ExecRequest{Source: "echo", Cwd: "nul\x00"}, 400, api.CodeInvalid},
			{client.ExecRequest{Source: "echo", Input: json.RawMessage(`{"a":1}`), OutputLimit: 1 << 40}, 413, api.CodeTooLarge},
		} {
			_, err := c.Exec(bg, "w", tc.req)
			wantCode(t, "exec "+tc.req.Backend+tc.req.Timeout+tc.req.ID+tc.req.Cwd, err, tc.status, tc.code)
		}
		if st, _, code := e.raw("POST", "/v1/workspaces/w/executions", e.admin, strings.NewReader(`{"source": 1}`)); st != 400 || code != api.CodeBadJSON {
			t.Errorf("bad JSON: %d %s", st, code)
		}
	})
	t.Run("busy", func(t *testing.T) {
		var ids []string
		for range 2 {
			ex, err := c.Exec(bg, "w", client.ExecRequest{Source: "block"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ex.ID)
		}
		_, err := c.Exec(bg, "w", client.ExecRequest{Source: "echo"})
		wantCode(t, "third", err, 429, api.CodeBusy)
		for _, id := range ids {
			if err := c.Kill(bg, "w", id, "KILL"); err != nil {
				t.Fatal(err)
			}
			s, err := c.Events(bg, "w", id, client.EventsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			readAll(t, s)
		}
	})
	t.Run("metrics", func(t *testing.T) {
		m, err := c.Metrics(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`desk_executions_total{backend="lines",status="completed"}`,
			`desk_executions_total{backend="lines",status="cancelled"}`,
			`desk_http_requests_total{method="POST",route="exec",status="201"}`,
			`desk_http_request_duration_seconds_bucket{method="GET",route="readFile"`,
			`desk_workspaces_open 1`,
		} {
			if !strings.Contains(string(m), want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})
}

// TestAPI_ExecutionOutlivesRequest checks that a running execution keeps its
// workspace open (its own lease) when the idle timeout is short.
func TestAPI_ExecutionOutlivesRequest(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	ex, err := e.c.Exec(bg, "w", client.ExecRequest{Source: "echo a\nblock"})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.h.HibernateIdle(); n != 0 {
		t.Fatalf("HibernateIdle closed %d workspaces while an execution ran", n)
	}
	if err := e.c.Kill(bg, "w", ex.ID, ""); err != nil {
		t.Fatal(err)
	}
	s, err := e.c.Events(bg, "w", ex.ID, client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, s)
}

func TestAPI_Changes(t *testing.T) {
	e := newEnv(t, envOpts{vfs: vfs.Options{JournalKeep: 20}})
	e.mkws("w")
	c := e.c
	ctx, cancel := context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	for _, format := range []client.StreamFormat{client.NDJSON, client.SSE} {
		l, err := c.Changes(ctx, "w", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.FollowChanges(ctx, "w", l.Next, format)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, err := c.WriteFile(ctx, "w", "/f"+strconv.Itoa(i), strings.NewReader("x"), client.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		seen := map[string]bool{}
		prev := l.Next
		for len(seen) < 3 {
			ch, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if ch.Seq <= prev {
				t.Fatalf("change %d after %d", ch.Seq, prev)
			}
			prev = ch.Seq
			seen[ch.Path] = true
		}
		s.Close()
		p, err := c.Changes(ctx, "w", l.Next, 2)
		if err != nil || len(p.Changes) != 2 || p.Next != p.Changes[1].Seq {
			t.Fatalf("page = %+v, %v", p, err)
		}
	}
	// Past retention: journal_truncated, for a page and for a follow.
	// The journal trims in steps of 1024 changes past JournalKeep.
	err := e.h.Do(ctx, "w", func(ws *workspace.Workspace) error {
		for i := range 1100 {
			if err := ws.FS().Mkdir(ctx, "/g"+strconv.Itoa(i), 0o755); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Changes(ctx, "w", 1, 0)
	wantCode(t, "old cursor", err, 410, api.CodeJournalTruncated)
	_, err = c.FollowChanges(ctx, "w", 1, client.SSE)
	wantCode(t, "old cursor follow", err, 410, api.CodeJournalTruncated)

	// Last-Event-ID on the change feed, over plain HTTP with a deadline.
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+"/v1/workspaces/w/changes?follow=1", nil)
	req.Header.Set("Authorization", "Bearer "+e.admin)
	req.Header.Set("Accept", "text/event-stream")
	st, _ := c.WorkspaceStats(ctx, "w")
	req.Header.Set("Last-Event-ID", strconv.FormatUint(st.Store.JournalSeq-1, 10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if want := "id: " + strconv.FormatUint(st.Store.JournalSeq, 10) + "\n"; line != want {
		t.Fatalf("first SSE line %q, want %q", line, want)
	}
}

// TestAPI_ExecutionUsage checks that a backend's resource usage reaches the
// execution's record (run and get), is absent when the backend measures
// none, and is described in /openapi.json.
func TestAPI_ExecutionUsage(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	r, err := e.c.Run(bg, "w", client.ExecRequest{Source: "usage 1500ms 250ms 4096", ID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	want := client.ExecUsage{UserNS: 1_500_000_000, SysNS: 250_000_000, MaxRSSBytes: 4096}
	if r.Usage == nil || *r.Usage != want {
		t.Fatalf("run: usage = %+v, want %+v", r.Usage, want)
	}
	got, err := e.c.GetExecution(bg, "w", "u")
	if err != nil || got.Usage == nil || *got.Usage != want {
		t.Fatalf("get: usage = %+v, %v", got.Usage, err)
	}
	st, body, _ := e.raw("GET", "/v1/workspaces/w/executions/u", e.admin, nil)
	if st != 200 || !strings.Contains(string(body), `"usage":{"user_ns":1500000000,"sys_ns":250000000,"max_rss_bytes":4096}`) {
		t.Fatalf("raw record: %d %s", st, body)
	}
	r, err = e.c.Run(bg, "w", client.ExecRequest{Source: "echo hi"})
	if err != nil || r.Usage != nil {
		t.Fatalf("no usage measured: usage = %+v, %v", r.Usage, err)
	}
	if _, body, _ := e.raw("GET", "/v1/workspaces/w/executions/"+r.ID, e.admin, nil); strings.Contains(string(body), `"usage"`) {
		t.Fatalf("usage present when none was measured: %s", body)
	}

	b, err := e.c.OpenAPI(bg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				} `json:"properties"`
				Required []string `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Execution", "Result"} {
		s := doc.Components.Schemas[name]
		u, ok := s.Properties["usage"]
		if !ok || len(u.Properties) != 4 || u.Properties["cpu_ns"] == nil || u.Properties["user_ns"] == nil || u.Properties["sys_ns"] == nil || u.Properties["max_rss_bytes"] == nil {
			t.Fatalf("%s: usage schema = %+v", name, u)
		}
		for _, f := range s.Required {
			if f == "usage" {
				t.Fatalf("%s: usage is required", name)
			}
		}
	}
}
