package cmds

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// TestTar_hostileHeaders: archives whose headers claim more than they hold
// (a 4 MiB PAX record, a 1 TiB member cut short, a 4 MiB long name) end
// with an error and a failing status, and the work stays bounded: tar
// streams members, and archive/tar refuses PAX and GNU long-name records
// over 1 MiB before reading them whole.
func TestTar_hostileHeaders(t *testing.T) {
	huge := strings.Repeat("x", 4<<20)
	cases := map[string]func(tw *tar.Writer, buf *bytes.Buffer){
		"4 MiB PAX record": func(tw *tar.Writer, buf *bytes.Buffer) {
			// archive/tar's writer refuses such a record, so the extended
			// header is written as a regular member and retyped 'x'.
			rec := "comment=" + huge + "\n"
			rec = fmt.Sprintf("%d %s", len(rec)+8, rec) // 8: the length's digits and the space
			tw.WriteHeader(&tar.Header{Name: "PaxHeader", Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(rec)), Format: tar.FormatUSTAR})
			tw.Write([]byte(rec))
			tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR})
			tw.Flush()
			retype(buf.Bytes()[:512], tar.TypeXHeader)
		},
		"4 MiB long name": func(tw *tar.Writer, _ *bytes.Buffer) {
			tw.WriteHeader(&tar.Header{Name: huge, Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatGNU})
		},
		"1 TiB member cut short": func(tw *tar.Writer, _ *bytes.Buffer) {
			tw.WriteHeader(&tar.Header{Name: "big", Mode: 0o644, Typeflag: tar.TypeReg, Size: 1 << 40})
			tw.Write(make([]byte, 1<<20))
			tw.Flush() // fails: the member is short; the archive ends here
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			build(tw, &buf)
			if name != "1 TiB member cut short" {
				// The archive is well formed; only the record is too long.
				if _, err := tar.NewReader(bytes.NewReader(buf.Bytes())).Next(); !errors.Is(err, tar.ErrFieldTooLong) {
					t.Fatalf("the fixture: archive/tar reads it with %v, want ErrFieldTooLong", err)
				}
			}
			f := newStore(t, map[string]string{"evil.tar": buf.String()})
			var stderr string
			var status int
			alloc := testenv.Allocated(func() {
				_, stderr, status = runIn(t, f, "/work", "", "tar", "-xf", "evil.tar")
			})
			want := "longer than 1 MiB"
			if name == "1 TiB member cut short" {
				want = "Unexpected EOF in archive"
			}
			if status == 0 || !strings.Contains(stderr, want) {
				t.Errorf("tar -xf of a hostile archive: status %d, stderr %q; want a failure saying %q", status, stderr, want)
			}
			t.Logf("status %d, %q, %d KiB allocated", status, strings.TrimSpace(stderr), alloc>>10)
			if alloc > 24<<20 {
				t.Errorf("tar -xf allocated %d MiB on a %d MiB archive; want under 24 MiB", alloc>>20, buf.Len()>>20)
			}
		})
	}
}

// retype sets the type of the tar header block h and its checksum.
func retype(h []byte, typ byte) {
	h[156] = typ
	copy(h[148:156], "        ")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
}
