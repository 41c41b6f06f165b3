package wire

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version; Config and Ready carry it and a mismatch
// ends the connection.
const Version = 1

// HeaderLen is the size of a frame header.
const HeaderLen = 9

// MaxPayload bounds a frame's payload.
const MaxPayload = 1 << 20

// MaxData is the largest data frame either side sends.
const MaxData = 32 << 10

// Type is a frame type.
type Type uint8

// Frame types, host to init.
const (
	TConfig Type = 1 // JSON Config; first frame of the connection
	TStart  Type = 2 // JSON Start; opens a stream
	TStdin  Type = 3 // bytes for the program's stdin; empty: close it
	TSignal Type = 4 // JSON Signal
	TCredit Type = 5 // uint32: output bytes of the stream consumed
	TList   Type = 6 // empty; answered by Listed on the same stream
	TAttach Type = 7 // JSON Attach; opens a stream on a detached execution
	TResize Type = 8 // JSON Resize: a terminal execution's window size; no answer
)

// Frame types, init to host.
const (
	TReady    Type = 64 // JSON Ready; answer to Config
	TStarted  Type = 65 // JSON Started
	TStdout   Type = 66 // output bytes
	TStderr   Type = 67 // output bytes
	TStdinAck Type = 68 // uint32: stdin bytes written to the program's pipe
	TExit     Type = 69 // JSON Exit; last frame of a stream
	TError    Type = 70 // JSON Error; the request on the stream failed, the stream is over
	TListed   Type = 71 // JSON Listed
	TElided   Type = 72 // uint32: output bytes a detached execution's buffer dropped
	TOK       Type = 73 // empty: the request on the stream (Signal with an ID) succeeded; the stream is over
	TPolicy   Type = 74 // JSON ExecDecision: an execve refused by Start.Commands
)

var typeNames = map[Type]string{
	TConfig: "config", TStart: "start", TStdin: "stdin", TSignal: "signal", TCredit: "credit",
	TList: "list", TAttach: "attach", TResize: "resize", TReady: "ready", TStarted: "started",
	TStdout: "stdout", TStderr: "stderr", TStdinAck: "stdin-ack", TExit: "exit", TError: "error",
	TListed: "listed", TElided: "elided", TOK: "ok", TPolicy: "policy",
}

// String names the type.
func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// Frame is one frame.
type Frame struct {
	Type    Type
	Stream  uint32
	Payload []byte
}

// ErrProtocol is wrapped by every error about a malformed frame.
var ErrProtocol = errors.New("sandbox protocol error")

// Append appends f's encoding to b.
func Append(b []byte, f Frame) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(5+len(f.Payload)))
	b = append(b, byte(f.Type))
	b = binary.BigEndian.AppendUint32(b, f.Stream)
	return append(b, f.Payload...)
}

// Write writes f to w in one Write call (so that writers sharing w under a
// lock never interleave a frame).
func Write(w io.Writer, f Frame) error {
	if len(f.Payload) > MaxPayload {
		return fmt.Errorf("write %s frame: %d bytes: %w", f.Type, len(f.Payload), ErrProtocol)
	}
	_, err := w.Write(Append(make([]byte, 0, HeaderLen+len(f.Payload)), f))
	return err
}

// Reader reads frames.
type Reader struct {
	r   *bufio.Reader
	hdr [HeaderLen]byte
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Next reads the next frame. Its payload is a fresh slice the caller owns. At
// the end of the stream it returns io.EOF (io.ErrUnexpectedEOF inside a frame).
func (r *Reader) Next() (Frame, error) {
	if _, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
		return Frame{}, err
	}
	n := binary.BigEndian.Uint32(r.hdr[:4])
	if n < 5 || n-5 > MaxPayload {
		return Frame{}, fmt.Errorf("read frame: length %d: %w", n, ErrProtocol)
	}
	f := Frame{Type: Type(r.hdr[4]), Stream: binary.BigEndian.Uint32(r.hdr[5:])}
	if _, ok := typeNames[f.Type]; !ok {
		return Frame{}, fmt.Errorf("read frame: unknown %s: %w", f.Type, ErrProtocol)
	}
	if n > 5 {
		f.Payload = make([]byte, n-5)
		if _, err := io.ReadFull(r.r, f.Payload); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
	}
	return f, nil
}

// JSON returns a frame of type t on stream s carrying v as JSON.
func JSON(t Type, s uint32, v any) Frame {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("wire: marshal %T: %v", v, err)) // only our own types are marshalled
	}
	return Frame{Type: t, Stream: s, Payload: b}
}

// Decode decodes f's JSON payload into v.
func Decode(f Frame, v any) error {
	if err := json.Unmarshal(f.Payload, v); err != nil {
		return fmt.Errorf("decode %s frame: %v: %w", f.Type, err, ErrProtocol)
	}
	return nil
}

// Count returns a frame of type t on stream s carrying n (Credit, StdinAck, Elided).
func Count(t Type, s uint32, n uint32) Frame {
	return Frame{Type: t, Stream: s, Payload: binary.BigEndian.AppendUint32(nil, n)}
}

// CountOf decodes the payload of a Credit, StdinAck or Elided frame.
func CountOf(f Frame) (uint32, error) {
	if len(f.Payload) != 4 {
		return 0, fmt.Errorf("decode %s frame: %d bytes: %w", f.Type, len(f.Payload), ErrProtocol)
	}
	return binary.BigEndian.Uint32(f.Payload), nil
}
