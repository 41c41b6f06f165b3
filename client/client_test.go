package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/desk-dev/desk/client"
)

func TestEvent_JSON(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("text\n"), {0xff, 0x00, 'a'}} {
		b, err := json.Marshal(client.Event{Seq: 2, Type: client.EventStdout, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		var ev client.Event
		if err := json.Unmarshal(b, &ev); err != nil || string(ev.Data) != string(data) || ev.Seq != 2 {
			t.Errorf("round trip of %q via %s: %+v, %v", data, b, ev, err)
		}
	}
}

func TestClient_Streams(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"code":"unauthorized","message":"no"}}`)
			return
		}
		if r.Header.Get("Accept") == "text/event-stream" {
			io.WriteString(w, ": ping\n\nid: 1\nevent: stdout\ndata: {\"seq\":1,\"type\":\"stdout\",\"data\":\"a\"}\n\n"+
				"id: 2\nevent: exit\ndata: {\"seq\":2,\"type\":\"exit\",\"exit\":{\"status\":\"completed\",\"exit_code\":0}}\n\n")
			return
		}
		io.WriteString(w, "{\"seq\":1,\"type\":\"stdout\",\"data_base64\":\"/w==\"}\n\n{\"error\":{\"code\":\"unavailable\",\"message\":\"shutting down\"}}\n")
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, "tok", client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := c.Events(ctx, "w", "x", client.EventsOptions{Format: client.SSE})
	if err != nil {
		t.Fatal(err)
	}
	var got []client.Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if len(got) != 2 || string(got[0].Data) != "a" || got[1].Exit.Status != "completed" || s.LastID != 2 {
		t.Fatalf("SSE events %+v (last id %d)", got, s.LastID)
	}
	s, err = c.Events(ctx, "w", "x", client.EventsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := s.Next(); err != nil || string(ev.Data) != "\xff" {
		t.Fatalf("NDJSON event %+v, %v", ev, err)
	}
	if _, err := s.Next(); client.ErrorCode(err) != "unavailable" {
		t.Fatalf("error event: %v", err)
	}
	bad, _ := client.New(srv.URL, "wrong", client.Options{})
	var ce *client.Error
	if _, err := bad.GetWorkspace(ctx, "w"); !errors.As(err, &ce) || ce.Status != 401 || ce.Code != "unauthorized" {
		t.Fatalf("error = %v", err)
	}
	if _, err := client.New("ftp://x", "", client.Options{}); err == nil {
		t.Fatal("New accepted a non-http URL")
	}
}
