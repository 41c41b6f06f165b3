package client

import (
	"syscall"
	"testing"
)

// TestFileType: every type maps to the kernel's type bits and back, and
// the permission bits do not disturb it.
func TestFileType(t *testing.T) {
	want := map[string]uint32{
		TypeFile: syscall.S_IFREG, TypeDir: syscall.S_IFDIR, TypeSymlink: syscall.S_IFLNK,
		TypeFIFO: syscall.S_IFIFO, TypeSocket: syscall.S_IFSOCK, TypeChar: syscall.S_IFCHR, TypeBlock: syscall.S_IFBLK,
	}
	for name, bits := range want {
		if got := ModeOfType(name); got != bits {
			t.Errorf("ModeOfType(%q) = %#o, want %#o", name, got, bits)
		}
		if got := TypeOfMode(bits | 0o4755); got != name {
			t.Errorf("TypeOfMode(%#o) = %q, want %q", bits|0o4755, got, name)
		}
	}
	if got := ModeOfType("door"); got != 0 {
		t.Errorf("ModeOfType(door) = %#o, want 0", got)
	}
	if got := TypeOfMode(0o644); got != TypeFile {
		t.Errorf("TypeOfMode(0644) = %q, want %q", got, TypeFile)
	}
}
