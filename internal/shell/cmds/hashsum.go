package cmds

import (
	"bufio"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/crypto/blake2b"
)

func init() {
	Register("md5sum", hashSum("md5sum", md5.New))
	Register("sha1sum", hashSum("sha1sum", sha1.New))
	Register("sha224sum", hashSum("sha224sum", sha256.New224))
	Register("sha256sum", hashSum("sha256sum", sha256.New))
	Register("sha384sum", hashSum("sha384sum", sha512.New384))
	Register("sha512sum", hashSum("sha512sum", sha512.New))
	Register("b2sum", digestSum("b2sum", blake2Digest, false))
}

// digest is an algorithm of the checksum tools: its BSD tag ("MD5") and
// hash; blake2 digests take a length (-l BITS, 8..512).
type digest struct {
	tag     string
	newHash func() hash.Hash
	blake2  bool
}

// blake2Digest is BLAKE2b-512, b2sum's.
var blake2Digest = digest{tag: "BLAKE2b", newHash: func() hash.Hash { return newBlake2b(512) }, blake2: true}

// newBlake2b returns BLAKE2b with a digest of bits (a multiple of 8, at
// most 512, checked by the caller).
func newBlake2b(bits int) hash.Hash {
	h, err := blake2b.New(bits/8, nil)
	if err != nil {
		panic(err) // bits checked before
	}
	return h
}

// withLength is d with a digest of bits (blake2 only): its tag is
// "BLAKE2b-BITS" below 512, as GNU's.
func (d digest) withLength(bits int) digest {
	if !d.blake2 || bits == 512 {
		return d
	}
	d.tag = fmt.Sprintf("%s-%d", strings.SplitN(d.tag, "-", 2)[0], bits)
	d.newHash = func() hash.Hash { return newBlake2b(bits) }
	return d
}

// hashSum makes md5sum, sha1sum, sha256sum... as GNU coreutils: print
// "hash  name" for each file ("-" or none: stdin; -b prints "hash *name"),
// or with -c read such lines and check them ("name: OK" / "name: FAILED",
// the GNU warnings, --status, --quiet, --strict, --ignore-missing). -t and
// -b are accepted; --tag writes (and -c reads) the BSD form "MD5 (name) =
// hash". Files are streamed through the hash.
func hashSum(name string, newHash func() hash.Hash) Func {
	return digestSum(name, digest{tag: strings.ToUpper(strings.TrimSuffix(name, "sum")), newHash: newHash}, false)
}

// digestSum is hashSum for d; b2sum's (d.blake2) takes -l BITS. With
// cksum, d's output is tagged unless --untagged.
func digestSum(name string, algo digest, cksum bool) Func {
	return func(env *Env, args []string) int {
		d := algo
		spec := optSpec{shorts: "bctwz",
			longs: []string{"binary", "check", "text", "warn", "zero", "status", "quiet", "strict", "ignore-missing", "tag"}}
		if d.blake2 {
			spec.shorts += "l:"
			spec.longs = append(spec.longs, "length=", "help", "version")
		}
		if cksum {
			spec = optSpec{shorts: "a:cl:wz", longs: []string{"algorithm=", "check", "length=", "warn", "zero", "status", "quiet",
				"strict", "ignore-missing", "tag", "untagged", "debug", "help", "version"}}
		}
		opts, files, ok := parseOpts(env, name, args[1:], spec)
		if !ok {
			return 1
		}
		var check, binary, status, quiet, strict, warn, ignoreMissing, zero, tag, tagged bool
		for _, o := range opts {
			switch o.name {
			case "help":
				return coreutilsHelp(env, name)
			case "version":
				fmt.Fprintln(env.Stdout, versionLines[name])
				return 0
			case "l", "length":
				bits, ok := blake2Length(env, name, o.val)
				if !ok {
					return 1
				}
				d = d.withLength(bits)
			case "untagged":
				tagged = false
			case "c", "check":
				check = true
			case "b", "binary":
				binary = true
			case "t", "text":
				binary = false
			case "status":
				status = true
			case "quiet":
				quiet = true
			case "strict":
				strict = true
			case "w", "warn":
				warn = true
			case "ignore-missing":
				ignoreMissing = true
			case "z", "zero":
				zero = true
			case "tag":
				tag, tagged = true, true
			}
		}
		if tag && check {
			tryHelp(env, name, "the --tag option is meaningless when verifying checksums")
			return 1
		}
		if cksum {
			tag = tagged || !slices.ContainsFunc(opts, func(o opt) bool { return o.name == "untagged" })
		}
		algo := d.tag
		newHash := d.newHash
		if len(files) == 0 {
			files = []string{"-"}
		}
		sum := func(f string) (string, error) {
			r, err := openArg(env, f)
			if err != nil {
				return "", err
			}
			defer r.Close()
			h := newHash()
			if _, err := io.Copy(h, r); err != nil {
				return "", err
			}
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		w := bufio.NewWriter(env.Stdout)
		defer w.Flush()
		rc := 0
		if !check {
			end := "\n"
			if zero {
				end = "\x00"
			}
			for _, f := range files {
				s, err := sum(f)
				if err != nil {
					w.Flush()
					if !isCanceled(env, err) {
						env.PathError(name, quotef(env, f), err)
					}
					rc = 1
					continue
				}
				sep := "  "
				if binary {
					sep = " *"
				}
				disp := f
				if !zero && strings.ContainsAny(f, "\\\n") {
					disp = strings.ReplaceAll(strings.ReplaceAll(f, "\\", "\\\\"), "\n", "\\n")
					s = "\\" + s
				}
				if tag {
					if strings.HasPrefix(s, "\\") {
						fmt.Fprint(w, "\\"+algo+" ("+disp+") = "+s[1:]+end)
					} else {
						fmt.Fprint(w, algo+" ("+disp+") = "+s+end)
					}
					continue
				}
				fmt.Fprint(w, s+sep+disp+end)
			}
			return rc
		}
		baseHex := newHash().Size() * 2
		hexLen := baseHex
		lineDigest := d
		for _, list := range files {
			r, err := openArg(env, list)
			if err != nil {
				env.PathError(name, quotef(env, list), err)
				rc = 1
				continue
			}
			lr := newLineReader(env, r, '\n')
			var bad, failed, unread, okCount, lineNo, missing int
			for {
				line, err := lr.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					if !isCanceled(env, err) {
						w.Flush()
						env.PathError(name, quotef(env, list), err)
					}
					rc = 1
					break
				}
				lineNo++
				l := strings.TrimRight(string(line), "\n")
				l = strings.TrimSuffix(l, "\r")
				if strings.HasPrefix(l, "#") {
					continue
				}
				escaped := strings.HasPrefix(l, "\\")
				if escaped {
					l = l[1:]
				}
				// The BSD form that --tag writes: "MD5 (name) = hash".
				hexLen, algo, newHash = baseHex, d.tag, d.newHash
				if d.blake2 {
					hexLen, algo, newHash = blake2Line(l, lineDigest)
				}
				if strings.HasPrefix(l, algo+" (") && len(l) >= hexLen+4 && strings.HasSuffix(l[:len(l)-hexLen], ") = ") && isHex(l[len(l)-hexLen:]) {
					l = l[len(l)-hexLen:] + "  " + l[len(algo)+2:len(l)-hexLen-4]
				}
				if len(l) < hexLen+2 || !isHex(l[:hexLen]) || l[hexLen] != ' ' || (l[hexLen+1] != ' ' && l[hexLen+1] != '*') {
					bad++
					if warn {
						w.Flush()
						env.Errorf(name, "%s: %d: improperly formatted %s checksum line", quotef(env, list), lineNo, strings.ToUpper(strings.TrimSuffix(name, "sum")))
					}
					continue
				}
				want, file := strings.ToLower(l[:hexLen]), l[hexLen+2:]
				if escaped {
					file = strings.NewReplacer("\\\\", "\\", "\\n", "\n").Replace(file)
				}
				got, err := sum(file)
				if err != nil {
					if ignoreMissing && strings.Contains(Strerror(err), "No such file") {
						missing++
						continue
					}
					unread++
					w.Flush()
					env.PathError(name, quotef(env, file), err)
					if !status {
						fmt.Fprintf(w, "%s: FAILED open or read\n", file)
					}
					continue
				}
				if got != want {
					failed++
					if !status {
						fmt.Fprintf(w, "%s: FAILED\n", file)
					}
					continue
				}
				okCount++
				if !status && !quiet {
					fmt.Fprintf(w, "%s: OK\n", file)
				}
			}
			r.Close()
			w.Flush()
			plural := func(n int, one, many string) string {
				if n == 1 {
					return one
				}
				return many
			}
			if okCount+failed+unread == 0 && missing > 0 {
				env.Errorf(name, "%s: no file was verified", quotef(env, list))
				rc = 1
				continue
			}
			if okCount+failed+unread == 0 {
				env.Errorf(name, "%s: no properly formatted checksum lines found", quotef(env, list))
				rc = 1
				continue
			}
			if !status {
				if bad > 0 {
					env.Errorf(name, "WARNING: %d %s improperly formatted", bad, plural(bad, "line is", "lines are"))
				}
				if unread > 0 {
					env.Errorf(name, "WARNING: %d listed %s could not be read", unread, plural(unread, "file", "files"))
				}
				if failed > 0 {
					env.Errorf(name, "WARNING: %d computed %s did NOT match", failed, plural(failed, "checksum", "checksums"))
				}
			}
			if failed > 0 || unread > 0 || strict && bad > 0 {
				rc = 1
			}
		}
		return rc
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// blake2Length parses -l BITS as GNU's b2sum: a multiple of 8 up to 512
// (0 is the default, 512).
func blake2Length(env *Env, name, v string) (int, bool) {
	n, err := strconv.ParseUint(v, 10, 64)
	switch {
	case err != nil:
		env.Errorf(name, "invalid length: %s", quote(env, v))
		return 0, false
	case n > 512:
		env.Errorf(name, "invalid length: %s", quote(env, v))
		env.Errorf(name, "maximum digest length for %s is 512 bits", quote(env, "BLAKE2b"))
		return 0, false
	case n%8 != 0:
		env.Errorf(name, "invalid length: %s", quote(env, v))
		env.Errorf(name, "length is not a multiple of 8")
		return 0, false
	case n == 0:
		n = 512
	}
	return int(n), true
}

// blake2Line is the digest a line of b2sum -c names, as GNU's reads it
// (with or without -l): "BLAKE2b-N (name) = hash" is BLAKE2b-N, an
// untagged line's length is its hash's.
func blake2Line(l string, d digest) (hexLen int, tag string, newHash func() hash.Hash) {
	bits := 512
	if rest, ok := strings.CutPrefix(l, "BLAKE2b-"); ok {
		i := strings.IndexByte(rest, ' ')
		if n, err := strconv.Atoi(rest[:max(i, 0)]); err == nil && n > 0 && n <= 512 && n%8 == 0 {
			bits = n
		}
	} else if !strings.HasPrefix(l, "BLAKE2b (") {
		if i := strings.IndexByte(l, ' '); i > 0 && i%2 == 0 && i <= 128 && isHex(l[:i]) {
			bits = i * 4
		}
	}
	dd := blake2Digest.withLength(bits)
	return bits / 4, dd.tag, dd.newHash
}
