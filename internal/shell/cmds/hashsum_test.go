package cmds

import "testing"

func TestHashSum(t *testing.T) {
	fx := map[string]string{
		"f":     "a\nb\nc\n",
		"g":     "x\ny",
		"a b":   "a\n",
		"d/":    "",
		"sums":  "bf5fe6a23ec2ee2aa6e8e9a3a8b2b6dfd3a0d98f0e64ce8e0ac1ffa9fdc0ec14  f\n",
		"m5":    "40c53c58fdafacc83cfff6ee3d2f6d69  f\n16151ff14c884e2d18c9903202288ba0  g\n",
		"bad5":  "bad\n16151ff14c884e2d18c9903202288ba0  g\n",
		"fail5": "16151ff14c884e2d18c9903202288ba0  f\n",
		"miss5": "16151ff14c884e2d18c9903202288ba0  x\n",
		"none":  "junk\n",
	}
	runTextRows(t, []textRow{
		{args: []string{"md5sum", "f", "g"}, files: fx, out: "40c53c58fdafacc83cfff6ee3d2f6d69  f\n16151ff14c884e2d18c9903202288ba0  g\n"},
		{args: []string{"md5sum"}, stdin: "hi\n", out: "764efa883dda1e11db47671c4a3bbd9e  -\n"},
		{args: []string{"md5sum", "-"}, stdin: "hi\n", out: "764efa883dda1e11db47671c4a3bbd9e  -\n"},
		{args: []string{"md5sum", "-b", "g"}, files: fx, out: "16151ff14c884e2d18c9903202288ba0 *g\n"},
		{args: []string{"md5sum", "-t", "g"}, files: fx, out: "16151ff14c884e2d18c9903202288ba0  g\n"},
		{args: []string{"md5sum", "a b"}, files: fx, out: "60b725f10c9c85c70d97880dfe8191b3  a b\n"},
		{args: []string{"sha1sum"}, stdin: "hi\n", out: "55ca6286e3e4f4fba5d0448333fa99fc5a404a73  -\n"},
		{args: []string{"sha256sum"}, stdin: "hi\n", out: "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4  -\n"},
		{args: []string{"sha512sum"}, stdin: "", out: "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e  -\n"},
		{args: []string{"md5sum", "-c", "m5"}, files: fx, out: "f: OK\ng: OK\n"},
		{args: []string{"md5sum", "-c", "--quiet", "m5"}, files: fx},
		{args: []string{"md5sum", "-c"}, files: fx, stdin: "16151ff14c884e2d18c9903202288ba0  g\n", out: "g: OK\n"},
		{args: []string{"md5sum", "-c", "bad5"}, files: fx, out: "g: OK\n", errOut: "md5sum: WARNING: 1 line is improperly formatted\n"},
		{args: []string{"md5sum", "-c", "--strict", "bad5"}, files: fx, code: 1, out: "g: OK\n", errOut: "md5sum: WARNING: 1 line is improperly formatted\n"},
		{args: []string{"md5sum", "-c", "fail5"}, files: fx, code: 1, out: "f: FAILED\n", errOut: "md5sum: WARNING: 1 computed checksum did NOT match\n"},
		{args: []string{"md5sum", "--status", "-c", "fail5"}, files: fx, code: 1},
		{args: []string{"md5sum", "-c", "miss5"}, files: fx, code: 1, out: "x: FAILED open or read\n",
			errOut: "md5sum: x: No such file or directory\nmd5sum: WARNING: 1 listed file could not be read\n"},
		{args: []string{"md5sum", "-c", "--ignore-missing", "miss5"}, files: fx, code: 1, errOut: "md5sum: miss5: no file was verified\n"},
		{args: []string{"md5sum", "-c", "none"}, files: fx, code: 1, errOut: "md5sum: none: no properly formatted checksum lines found\n"},
		{args: []string{"md5sum", "x"}, code: 1, errOut: "md5sum: x: No such file or directory\n"},
		{args: []string{"md5sum", "--tag", "f", "-"}, files: fx, stdin: "hi\n", out: "MD5 (f) = 40c53c58fdafacc83cfff6ee3d2f6d69\nMD5 (-) = 764efa883dda1e11db47671c4a3bbd9e\n"},
		{args: []string{"md5sum", "-c"}, files: fx, stdin: "MD5 (f) = 40c53c58fdafacc83cfff6ee3d2f6d69\nSHA1 (g) = 16151ff14c884e2d18c9903202288ba0\n", out: "f: OK\n", errOut: "md5sum: WARNING: 1 line is improperly formatted\n"},
		{args: []string{"md5sum", "--tag", "-c", "m5"}, files: fx, code: 1, errOut: "md5sum: the --tag option is meaningless when verifying checksums\nTry 'md5sum --help' for more information.\n"},
		{args: []string{"sha256sum", "d"}, files: fx, code: 1, errOut: "sha256sum: d: Is a directory\n"},
	})
}
