package cmds

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"io"
	"slices"
)

func init() { Register("cksum", Cksum) }

// cksumAlgos are cksum -a's algorithms in GNU's order (its "Valid
// arguments" list). sm3 is GNU's too but has no implementation here.
var cksumAlgos = []string{"bsd", "sysv", "crc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3"}

// cksumDigests are the -a algorithms that are digests.
var cksumDigests = map[string]digest{
	"md5": {tag: "MD5", newHash: md5.New}, "sha1": {tag: "SHA1", newHash: sha1.New},
	"sha224": {tag: "SHA224", newHash: sha256.New224}, "sha256": {tag: "SHA256", newHash: sha256.New},
	"sha384": {tag: "SHA384", newHash: sha512.New384}, "sha512": {tag: "SHA512", newHash: sha512.New},
	"blake2b": blake2Digest,
}

// Cksum is GNU coreutils 9.1's cksum: the POSIX CRC and byte count of each
// file (the default, -a crc), or sum -s's (-a sysv) and sum -r's (-a bsd)
// checksums and blocks, or with -a md5, sha1, sha224, sha256, sha384,
// sha512 or blake2b (-l BITS) the digest, tagged ("SHA256 (f) = ...")
// unless --untagged, and checked with -c as md5sum does. -a sm3 is
// refused: Go has no SM3.
func Cksum(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "cksum", args[1:], optSpec{shorts: "a:cl:wz", longs: []string{"algorithm=", "check", "length=",
		"warn", "zero", "status", "quiet", "strict", "ignore-missing", "tag", "untagged", "debug", "help", "version"}})
	if !ok {
		return 1
	}
	algo := "crc"
	var check, length, zero bool
	for _, o := range opts {
		switch o.name {
		case "a", "algorithm":
			a, ok := cksumAlgo(env, o.val)
			if !ok {
				return 1
			}
			algo = a
		case "c", "check":
			check = true
		case "l", "length":
			length = true
		case "z", "zero":
			zero = true
		case "help":
			return coreutilsHelp(env, "cksum")
		case "version":
			fmt.Fprintln(env.Stdout, versionLines["cksum"])
			return 0
		}
	}
	if length && algo != "blake2b" {
		env.Errorf("cksum", "--length is only supported with --algorithm=blake2b")
		return 1
	}
	if d, ok := cksumDigests[algo]; ok {
		return digestSum("cksum", d, true)(env, args)
	}
	if algo == "sm3" {
		env.Errorf("cksum", "sm3 is not supported in the shell backend")
		return 1
	}
	if check {
		env.Errorf("cksum", "--check is not supported with --algorithm={bsd,sysv,crc}")
		return 1
	}
	end := byte('\n')
	if zero {
		end = 0
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	named := len(files) > 0
	if !named {
		files = []string{"-"}
	}
	rc := 0
	for _, f := range files {
		r, err := openArg(env, f)
		if err == nil {
			err = cksumOne(w, r, algo, f, named, end)
			r.Close()
		}
		if err != nil {
			w.Flush()
			if !isCanceled(env, err) {
				env.PathError("cksum", quotef(env, f), err)
			}
			rc = 1
		}
	}
	return rc
}

// cksumAlgo parses -a: one of cksumAlgos exactly (GNU's XARGMATCH, with
// its "Valid arguments" list on a mismatch).
func cksumAlgo(env *Env, v string) (string, bool) {
	if slices.Contains(cksumAlgos, v) {
		return v, true
	}
	env.Errorf("cksum", "invalid argument %s for %s", quote(env, v), quote(env, "--algorithm"))
	io.WriteString(env.Stderr, "Valid arguments are:\n")
	for _, a := range cksumAlgos {
		fmt.Fprintf(env.Stderr, "  - %s\n", quote(env, a))
	}
	tryHelp(env, "cksum", "")
	return "", false
}

// cksumOne prints one file's line of -a crc, sysv or bsd. The name is left
// out for stdin when no file was named.
func cksumOne(w *bufio.Writer, r io.Reader, algo, name string, named bool, end byte) error {
	var line string
	switch algo {
	case "crc":
		h := newPosixCRC()
		n, err := io.Copy(h, r)
		if err != nil {
			return err
		}
		line = fmt.Sprintf("%d %d", h.sum(uint64(n)), n)
	case "sysv":
		var s uint64
		n, err := sumBytes(r, func(b []byte) {
			for _, c := range b {
				s += uint64(c)
			}
		})
		if err != nil {
			return err
		}
		r := s%(1<<16) + s%(1<<32)>>16
		line = fmt.Sprintf("%d %d", r%(1<<16)+r>>16, (n+511)/512)
	case "bsd":
		var s uint16
		n, err := sumBytes(r, func(b []byte) {
			for _, c := range b {
				s = (s>>1 | s<<15) + uint16(c)
			}
		})
		if err != nil {
			return err
		}
		line = fmt.Sprintf("%05d %5d", s, (n+1023)/1024)
	}
	w.WriteString(line)
	if named {
		w.WriteString(" " + name)
	}
	return w.WriteByte(end)
}

// sumBytes feeds r to f in blocks and returns its length.
func sumBytes(r io.Reader, f func([]byte)) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		f(buf[:k])
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// posixCRC is the CRC of POSIX cksum: polynomial 0x04C11DB7, most
// significant bit first, no reflection, the length appended, inverted.
type posixCRC struct{ crc uint32 }

// posixCRCTable is the table of the polynomial, MSB first.
var posixCRCTable = func() (t [256]uint32) {
	for i := range t {
		c := uint32(i) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ 0x04C11DB7
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func newPosixCRC() *posixCRC { return &posixCRC{} }

func (h *posixCRC) Write(p []byte) (int, error) {
	c := h.crc
	for _, b := range p {
		c = c<<8 ^ posixCRCTable[byte(c>>24)^b]
	}
	h.crc = c
	return len(p), nil
}

// sum is the checksum of the bytes written, n of them.
func (h *posixCRC) sum(n uint64) uint32 {
	c := h.crc
	for ; n > 0; n >>= 8 {
		c = c<<8 ^ posixCRCTable[byte(c>>24)^byte(n)]
	}
	return ^c
}
