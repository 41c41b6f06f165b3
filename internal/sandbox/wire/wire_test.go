package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestFrames_RoundTrip(t *testing.T) {
	var buf bytes.Buffer
	in := []Frame{
		JSON(TStart, 7, Start{ID: "x", Argv: []string{"/bin/bash", "-c", "true"}, Cwd: "/", Env: []string{"A=1"}}),
		{Type: TStdout, Stream: 7, Payload: []byte("hello")},
		{Type: TStdin, Stream: 7},
		Count(TCredit, 7, 5),
	}
	for _, f := range in {
		if err := Write(&buf, f); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf)
	for i, want := range in {
		got, err := r.Next()
		if err != nil || got.Type != want.Type || got.Stream != want.Stream || !bytes.Equal(got.Payload, want.Payload) {
			t.Fatalf("frame %d: %+v, %v; want %+v", i, got, err, want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last frame: %v", err)
	}
	var s Start
	if err := Decode(in[0], &s); err != nil || s.Argv[2] != "true" {
		t.Errorf("decode: %+v %v", s, err)
	}
	if n, err := CountOf(in[3]); n != 5 || err != nil {
		t.Errorf("count: %d %v", n, err)
	}
}

func TestFrames_Malformed(t *testing.T) {
	for name, b := range map[string][]byte{
		"too long":  {0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 1},
		"too short": {0, 0, 0, 2, 1, 0, 0, 0, 1},
	} {
		if _, err := NewReader(bytes.NewReader(b)).Next(); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := NewReader(bytes.NewReader([]byte{0, 0, 0, 9, 2, 0, 0, 0, 1, 'x'})).Next(); err != io.ErrUnexpectedEOF {
		t.Errorf("truncated payload: %v", err)
	}
	if err := Write(io.Discard, Frame{Type: TStdout, Payload: make([]byte, MaxPayload+1)}); !errors.Is(err, ErrProtocol) {
		t.Errorf("oversized write: %v", err)
	}
	if _, err := CountOf(Frame{Type: TCredit, Payload: []byte{1}}); !errors.Is(err, ErrProtocol) {
		t.Errorf("short count: %v", err)
	}
	if err := Decode(Frame{Type: TStart, Payload: []byte("{")}, &Start{}); !errors.Is(err, ErrProtocol) {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestFrames_Terminal(t *testing.T) {
	var buf bytes.Buffer
	start := JSON(TStart, 3, Start{ID: "sh", Argv: []string{"/bin/bash", "-l"}, Cwd: "/", Terminal: &Terminal{Rows: 24, Cols: 80}})
	if !bytes.Contains(start.Payload, []byte(`"terminal":{"rows":24,"cols":80}`)) {
		t.Errorf("start: %s", start.Payload)
	}
	plain := JSON(TStart, 4, Start{ID: "x", Argv: []string{"/bin/true"}, Cwd: "/"})
	if bytes.Contains(plain.Payload, []byte("terminal")) {
		t.Errorf("a start without a terminal: %s", plain.Payload)
	}
	for _, f := range []Frame{start, JSON(TResize, 3, Resize{Terminal{Rows: 40, Cols: 132}})} {
		if err := Write(&buf, f); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf)
	f, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	var s Start
	if err := Decode(f, &s); err != nil || s.Terminal == nil || *s.Terminal != (Terminal{Rows: 24, Cols: 80}) {
		t.Errorf("start: %+v, %v", s, err)
	}
	f, err = r.Next()
	if err != nil || f.Type != TResize || f.Stream != 3 || f.Type.String() != "resize" {
		t.Fatalf("resize frame: %+v, %v", f, err)
	}
	var rs Resize
	if err := Decode(f, &rs); err != nil || rs.Rows != 40 || rs.Cols != 132 || string(f.Payload) != `{"rows":40,"cols":132}` {
		t.Errorf("resize: %+v %s, %v", rs, f.Payload, err)
	}
	for _, tc := range []struct {
		t  Terminal
		ok bool
	}{
		{Terminal{1, 1}, true}, {Terminal{MaxTerminalSize, MaxTerminalSize}, true},
		{Terminal{0, 80}, false}, {Terminal{24, 0}, false}, {Terminal{-1, 80}, false}, {Terminal{24, MaxTerminalSize + 1}, false},
	} {
		if tc.t.Valid() != tc.ok {
			t.Errorf("%+v.Valid() = %v", tc.t, !tc.ok)
		}
	}
}
