package client

// POSIX file type bits (S_IFMT and its values), as every Unix and the
// workspace store number them.
const (
	modeTypeMask = 0o170000
	modeSocket   = 0o140000
	modeSymlink  = 0o120000
	modeFile     = 0o100000
	modeBlock    = 0o060000
	modeDir      = 0o040000
	modeChar     = 0o020000
	modeFIFO     = 0o010000
)

// fileTypes pairs each file type with its type bits.
var fileTypes = [...]struct {
	name string
	bits uint32
}{
	{TypeFile, modeFile}, {TypeDir, modeDir}, {TypeSymlink, modeSymlink}, {TypeFIFO, modeFIFO},
	{TypeSocket, modeSocket}, {TypeChar, modeChar}, {TypeBlock, modeBlock},
}

// TypeOfMode is the file type (TypeFile, TypeDir, ...) of a POSIX mode's
// type bits (mode & S_IFMT); bits of no known type read as TypeFile.
func TypeOfMode(mode uint32) string {
	for _, t := range fileTypes {
		if mode&modeTypeMask == t.bits {
			return t.name
		}
	}
	return TypeFile
}

// ModeOfType is the POSIX type bits (S_IFREG, S_IFDIR, ...) of a file type,
// 0 for a string that is not one.
func ModeOfType(t string) uint32 {
	for _, ft := range fileTypes {
		if t == ft.name {
			return ft.bits
		}
	}
	return 0
}
