package sandbox

import (
	"io/fs"
	"syscall"
)

// statUID is the owner of a file as the host sees it.
func statUID(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
