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
