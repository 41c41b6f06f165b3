package vfs

// ModeString renders a Unix mode as ls -l does: the type ('d', 'l', '-',
// 'p', 's', 'c', 'b', '?' for any other), then the permission bits with the set-id and sticky
// bits ("drwxr-sr-x", "-rwsr-xr-x", "drwxrwxrwt"; S and T where the bit
// under them is not executable).
func ModeString(m uint32) string {
	b := []byte("?rwxrwxrwx")
	switch m & S_IFMT {
	case S_IFDIR:
		b[0] = 'd'
	case S_IFLNK:
		b[0] = 'l'
	case S_IFREG:
		b[0] = '-'
	case S_IFIFO:
		b[0] = 'p'
	case S_IFSOCK:
		b[0] = 's'
	case S_IFCHR:
		b[0] = 'c'
	case S_IFBLK:
		b[0] = 'b'
	}
	for i := range 9 {
		if m&(1<<(8-i)) == 0 {
			b[i+1] = '-'
		}
	}
	special := func(pos int, bit uint32, set, unset byte) {
		if m&bit == 0 {
			return
		}
		if b[pos] == '-' {
			b[pos] = unset
		} else {
			b[pos] = set
		}
	}
	special(3, S_ISUID, 's', 'S')
	special(6, S_ISGID, 's', 'S')
	special(9, S_ISVTX, 't', 'T')
	return string(b)
}
