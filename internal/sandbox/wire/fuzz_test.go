package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
)

// FuzzReader feeds bytes written by a hostile init (or host) to the reader:
// it never panics, every error is a protocol error or the end of the input,
// every frame it returns has a known type and a bounded payload and encodes
// back to the bytes it came from, and decoding any payload as any message
// fails cleanly or succeeds.
func FuzzReader(f *testing.F) {
	for _, fr := range []Frame{
		JSON(TStart, 7, Start{ID: "x", Argv: []string{"/bin/bash", "-c", "true"}, Cwd: "/", Env: []string{"A=1"}, Terminal: &Terminal{24, 80}}),
		JSON(TExit, 7, Exit{Code: 1, Signal: 9, Error: "e"}),
		JSON(TListed, 0, Listed{Detached: []Detached{{ID: "d", Exit: &Exit{}}}}),
		{Type: TStdout, Stream: 7, Payload: []byte("hello")},
		{Type: TOK, Stream: 3},
		Count(TCredit, 7, 5),
	} {
		f.Add(Append(nil, fr))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 1})       // huge length
	f.Add([]byte{0, 0, 0, 5, 200, 0, 0, 0, 1})                 // unknown type
	f.Add([]byte{0, 0, 0, 9, byte(TCredit), 0, 0, 0, 1, 0, 0}) // truncated
	f.Add(Append(nil, Frame{Type: TStart, Payload: []byte(`{"argv":[[[[`)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(bytes.NewReader(b))
		var again []byte
		for {
			fr, err := r.Next()
			if err != nil {
				if !errors.Is(err, ErrProtocol) && err != io.EOF && err != io.ErrUnexpectedEOF {
					t.Fatalf("error %v is neither a protocol error nor the end of the input", err)
				}
				break
			}
			if len(fr.Payload) > MaxPayload {
				t.Fatalf("a %d-byte payload", len(fr.Payload))
			}
			if _, ok := typeNames[fr.Type]; !ok {
				t.Fatalf("a frame of unknown %s", fr.Type)
			}
			again = Append(again, fr)
			for _, v := range []any{&Config{}, &Ready{}, &Start{}, &Resize{}, &Started{}, &Signal{}, &Attach{}, &Exit{}, &Error{}, &Listed{}, &ExecDecision{}} {
				if err := Decode(fr, v); err != nil && !errors.Is(err, ErrProtocol) {
					t.Fatalf("decode %T: %v is not a protocol error", v, err)
				}
			}
			if _, err := CountOf(fr); err != nil && !errors.Is(err, ErrProtocol) {
				t.Fatalf("count: %v is not a protocol error", err)
			}
		}
		if !bytes.HasPrefix(b, again) {
			t.Fatalf("the frames read do not encode back to the input's start")
		}
	})
}

// TestReader_HostileLengthBoundedMemory: a header that claims more than
// MaxPayload is refused before anything is allocated for it, and one that
// claims MaxPayload and stops allocates the payload once, at most.
func TestReader_HostileLengthBoundedMemory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		length  uint32
		want    error
		maxHeap uint64
	}{
		{"4 GiB", 0xffffffff, ErrProtocol, 1 << 20},
		{"MaxPayload+1", 5 + MaxPayload + 1, ErrProtocol, 1 << 20},
		{"MaxPayload, truncated", 5 + MaxPayload, io.ErrUnexpectedEOF, MaxPayload + 1<<20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := binary.BigEndian.AppendUint32(nil, tc.length)
			hdr = append(hdr, byte(TStdout), 0, 0, 0, 1, 'x')
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := NewReader(bytes.NewReader(hdr)).Next()
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if d := after.TotalAlloc - before.TotalAlloc; d > tc.maxHeap {
				t.Errorf("allocated %d bytes, want at most %d", d, tc.maxHeap)
			}
		})
	}
}

// TestReader_UnknownType: a frame of a type the protocol does not define
// is a protocol error that names it.
func TestReader_UnknownType(t *testing.T) {
	_, err := NewReader(bytes.NewReader([]byte{0, 0, 0, 5, 200, 0, 0, 0, 1})).Next()
	if !errors.Is(err, ErrProtocol) || err.Error() != "read frame: unknown type 200: sandbox protocol error" {
		t.Errorf("unknown type: %v", err)
	}
}
