package vfs

// ModeString renders a Unix mode as ls -l does: the type ('d', 'l', '-',
// '?' for any other), then the permission bits with the set-id and sticky
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
