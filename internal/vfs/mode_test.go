package vfs_test

import (
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

func TestModeString(t *testing.T) {
	for mode, want := range map[uint32]string{
		0o100644: "-rw-r--r--",
		0o104755: "-rwsr-xr-x",
		0o104644: "-rwSr--r--",
		0o102755: "-rwxr-sr-x",
		0o041777: "drwxrwxrwt",
		0o041776: "drwxrwxrwT",
		0o120777: "lrwxrwxrwx",
		0o100000: "----------",
		0o010644: "prw-r--r--",
		0o140755: "srwxr-xr-x",
		0o020620: "crw--w----",
		0o060660: "brw-rw----",
		0o170644: "?rw-r--r--",
		0o000644: "?rw-r--r--",
	} {
		if got := vfs.ModeString(mode); got != want {
			t.Errorf("ModeString(%#o) = %q, want %q", mode, got, want)
		}
	}
}
