package cmds

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestCksum(t *testing.T) {
	h := map[string]string{"h": "hello\n", "e": ""}
	b2 := "f60ce482e5cc1229f39d71313171a8d9f4ca3a87d066bf4b205effb528192a75f14f3271e2c1a90e1de53f275b4d4793eef2f5e31ea90d2ce29d2e481c36435f"
	th := func(c string) string { return "Try '" + c + " --help' for more information.\n" }
	runTextRows(t, []textRow{
		{args: []string{"cksum", "h"}, files: h, out: "3015617425 6 h\n"},
		{args: []string{"cksum"}, stdin: "hello\n", out: "3015617425 6\n"},
		{args: []string{"cksum", "e", "-"}, files: h, stdin: "x", out: "4294967295 0 e\n12738659 1 -\n"},
		{args: []string{"cksum", "-a", "sysv", "h"}, files: h, out: "542 1 h\n"},
		{args: []string{"cksum", "-a", "bsd", "h"}, files: h, out: "36979     1 h\n"},
		{args: []string{"cksum", "-a", "bsd"}, stdin: "hello\n", out: "36979     1\n"},
		{args: []string{"cksum", "-a", "md5", "h"}, files: h, out: "MD5 (h) = b1946ac92492d2347c6235b4d2611184\n"},
		{args: []string{"cksum", "-a", "md5", "--untagged", "h"}, files: h, out: "b1946ac92492d2347c6235b4d2611184  h\n"},
		{args: []string{"cksum", "-a", "sha256", "--tag", "h"}, files: h, out: "SHA256 (h) = 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03\n"},
		{args: []string{"cksum", "-a", "blake2b", "-l", "256", "h"}, files: h, out: "BLAKE2b-256 (h) = 93becc6e9882211c3ec3708c95bcd69baab7bb59c7f4bc84ce637b88a534b783\n"},
		{args: []string{"cksum", "-a", "blake2b", "h"}, files: h, out: "BLAKE2b (h) = " + b2 + "\n"},
		{args: []string{"cksum", "-z", "-a", "md5", "h"}, files: h, out: "MD5 (h) = b1946ac92492d2347c6235b4d2611184\x00"},
		{args: []string{"cksum", "-a", "md5", "-c", "s"}, files: map[string]string{"h": "hello\n", "s": "MD5 (h) = b1946ac92492d2347c6235b4d2611184\n"}, out: "h: OK\n"},
		{args: []string{"cksum", "-a", "md5", "-c", "s"}, files: map[string]string{"h": "hello\n", "s": "b1946ac92492d2347c6235b4d2611184  h\n"}, out: "h: OK\n"},
		{args: []string{"cksum", "-a", "x", "h"}, files: h, errOut: "cksum: invalid argument ‘x’ for ‘--algorithm’\nValid arguments are:\n  - ‘bsd’\n  - ‘sysv’\n  - ‘crc’\n  - ‘md5’\n  - ‘sha1’\n  - ‘sha224’\n  - ‘sha256’\n  - ‘sha384’\n  - ‘sha512’\n  - ‘blake2b’\n  - ‘sm3’\n" + th("cksum"), code: 1},
		{args: []string{"cksum", "-a", "crc", "-c", "h"}, files: h, errOut: "cksum: --check is not supported with --algorithm={bsd,sysv,crc}\n", code: 1},
		{args: []string{"cksum", "-c", "s"}, files: map[string]string{"h": "hello\n", "s": "MD5 (h) = b1946ac92492d2347c6235b4d2611184\n"}, errOut: "cksum: --check is not supported with --algorithm={bsd,sysv,crc}\n", code: 1, skip: "GNU detects the algorithm of tagged lines without -a"},
		{args: []string{"b2sum", "--version"}, out: "b2sum (GNU coreutils) 9.1\n", host: "the rest of GNU's --version text"},
		{args: []string{"cksum", "-l", "8", "h"}, files: h, errOut: "cksum: --length is only supported with --algorithm=blake2b\n", code: 1},
		{args: []string{"cksum", "nosuch"}, errOut: "cksum: nosuch: No such file or directory\n", code: 1},
		{args: []string{"cksum", "--base64", "h"}, files: h, errOut: "cksum: unrecognized option '--base64'\n" + th("cksum"), code: 1},
		{args: []string{"cksum", "-a", "sm3", "h"}, files: h, errOut: "cksum: sm3 is not supported in the shell backend\n", code: 1, skip: "Go has no SM3"},

		{args: []string{"b2sum", "h"}, files: h, out: b2 + "  h\n"},
		{args: []string{"b2sum", "-l", "128", "h"}, files: h, out: "ea41b4de6c03f13a95758b28dd75693e  h\n"},
		{args: []string{"b2sum", "--tag", "-l", "128", "h"}, files: h, out: "BLAKE2b-128 (h) = ea41b4de6c03f13a95758b28dd75693e\n"},
		{args: []string{"b2sum", "--tag", "h"}, files: h, out: "BLAKE2b (h) = " + b2 + "\n"},
		{args: []string{"b2sum", "-l", "7", "h"}, files: h, errOut: "b2sum: invalid length: ‘7’\nb2sum: length is not a multiple of 8\n", code: 1},
		{args: []string{"b2sum", "-l", "1024", "h"}, files: h, errOut: "b2sum: invalid length: ‘1024’\nb2sum: maximum digest length for ‘BLAKE2b’ is 512 bits\n", code: 1},
		{args: []string{"b2sum", "-l", "x", "h"}, files: h, errOut: "b2sum: invalid length: ‘x’\n", code: 1},
		{args: []string{"b2sum", "-c", "s"}, files: map[string]string{"h": "hello\n", "s": "ea41b4de6c03f13a95758b28dd75693e  h\n"}, out: "h: OK\n"},
		{args: []string{"b2sum", "-c", "s"}, files: map[string]string{"h": "hello\n", "s": "BLAKE2b-128 (h) = ea41b4de6c03f13a95758b28dd75693e\n"}, out: "h: OK\n"},
		{args: []string{"b2sum", "-c", "s"}, files: map[string]string{"h": "hello\n", "s": b2 + "  h\n"}, out: "h: OK\n"},
		{args: []string{"b2sum", "-c", "s"}, files: map[string]string{"h": "hellO\n", "s": "BLAKE2b (h) = " + b2 + "\n"}, out: "h: FAILED\n", errOut: "b2sum: WARNING: 1 computed checksum did NOT match\n", code: 1},
		{args: []string{"b2sum", "-l", "128", "-c", "s"}, files: map[string]string{"h": "hello\n", "s": b2 + "  h\n"}, out: "h: OK\n"},
	})
}

// TestCksum_gnu runs every algorithm of cksum and b2sum's lengths over
// generated files through GNU's tools and desk's.
func TestCksum_gnu(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 2))
	files := map[string]string{}
	var names []string
	for i, n := range []int{0, 1, 3, 55, 56, 64, 255, 256, 511, 512, 513, 1023, 1024, 1025, 4096, 70000, 300000} {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if i%3 == 0 {
			for j := range b {
				b[j] = 0xff
			}
		}
		name := fmt.Sprintf("f%d", i)
		files[name] = string(b)
		names = append(names, name)
	}
	var cases [][]string
	for _, a := range []string{"crc", "sysv", "bsd", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b"} {
		cases = append(cases, append([]string{"cksum", "-a", a}, names...))
		cases = append(cases, append([]string{"cksum", "--untagged", "-a", a}, names...))
	}
	for _, l := range []string{"8", "16", "128", "256", "384", "504", "512", "0"} {
		cases = append(cases, append([]string{"b2sum", "-l", l}, names...))
		cases = append(cases, append([]string{"b2sum", "--tag", "-l", l}, names...))
	}
	for _, args := range cases {
		h, _ := runHost(t, args, files, nil, "")
		out, errOut, code := runEnv(t, nil, files, "", args...)
		if out != h.out || errOut != h.errOut || code != h.code {
			t.Errorf("%q:\n got %q %q %d\nGNU %q %q %d", args, out, errOut, code, h.out, h.errOut, h.code)
		}
	}
}
