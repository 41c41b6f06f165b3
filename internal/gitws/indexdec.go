package gitws

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// decodeIndex decodes an index file of version 2 or 3, the versions this
// package and git write by default, straight from its bytes. go-git's
// decoder reads every field through encoding/binary's reflection and
// hashes with the collision-detecting SHA-1, about 15 ms for 10,000
// entries, most of a clean status's time; this one is a few times faster.
// The checksum is verified with crypto/sha1 (it guards against a torn or
// corrupt file, not an adversary; an all-zero trailer is accepted, as git's
// index.skipHash writes it).
//
// ok is false for what it does not decode, which the caller hands to
// go-git's decoder: version 4, and a mandatory extension (one whose
// signature does not start with 'A'..'Z', such as a split index), which
// go-git then refuses. Optional extensions (the cache tree, resolve-undo,
// end of index) are skipped: nothing here reads them, and writeIndex drops
// them. A malformed file is an error.
func decodeIndex(data []byte) (idx *index.Index, ok bool, err error) {
	const hdr, trailer = 12, sha1.Size
	if len(data) < hdr+trailer || !bytes.Equal(data[:4], []byte("DIRC")) {
		return nil, false, nil
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version != 2 && version != 3 {
		return nil, false, nil
	}
	body := data[:len(data)-trailer]
	if sum := data[len(data)-trailer:]; !bytes.Equal(sum, make([]byte, trailer)) {
		if s := sha1.Sum(body); !bytes.Equal(sum, s[:]) {
			return nil, true, index.ErrInvalidChecksum
		}
	}
	n := binary.BigEndian.Uint32(data[8:])
	if uint64(n) > uint64(len(body))/62 {
		return nil, true, index.ErrMalformedIndexFile
	}
	idx = &index.Index{Version: version, Entries: make([]*index.Entry, 0, n)}
	ents := make([]index.Entry, n)
	off := hdr
	be := binary.BigEndian
	for i := range ents {
		if off+62 > len(body) {
			return nil, true, index.ErrMalformedIndexFile
		}
		b := body[off:]
		e := &ents[i]
		if sec, nsec := be.Uint32(b[0:]), be.Uint32(b[4:]); sec != 0 || nsec != 0 {
			e.CreatedAt = time.Unix(int64(sec), int64(nsec))
		}
		if sec, nsec := be.Uint32(b[8:]), be.Uint32(b[12:]); sec != 0 || nsec != 0 {
			e.ModifiedAt = time.Unix(int64(sec), int64(nsec))
		}
		e.Dev = be.Uint32(b[16:])
		e.Inode = be.Uint32(b[20:])
		e.Mode = filemode.FileMode(be.Uint32(b[24:]))
		e.UID = be.Uint32(b[28:])
		e.GID = be.Uint32(b[32:])
		e.Size = be.Uint32(b[36:])
		copy(e.Hash[:], b[40:60])
		flags := be.Uint16(b[60:])
		e.Stage = index.Stage(flags>>12) & 3
		read := 62
		if flags&0x4000 != 0 {
			if version < 3 || off+64 > len(body) {
				return nil, true, index.ErrMalformedIndexFile
			}
			ext := be.Uint16(b[62:])
			e.IntentToAdd = ext&(1<<13) != 0
			e.SkipWorktree = ext&(1<<14) != 0
			read = 64
		}
		nameLen := int(flags & 0xfff)
		rest := body[off+read:]
		consumed := nameLen
		if nameLen == 0xfff {
			nul := bytes.IndexByte(rest, 0)
			if nul < 0 {
				return nil, true, index.ErrMalformedIndexFile
			}
			nameLen, consumed = nul, nul+1
		} else if nameLen > len(rest) {
			return nil, true, index.ErrMalformedIndexFile
		}
		e.Name = string(rest[:nameLen])
		// 1 to 8 NULs pad the entry to a multiple of 8 bytes (fewer when a
		// long name's terminator was consumed), as go-git's padEntry.
		pad := 8 - (read+nameLen)%8 - (consumed - nameLen)
		if pad < 0 {
			pad = 0
		}
		off += read + consumed + pad
		if off > len(body) {
			return nil, true, index.ErrMalformedIndexFile
		}
		idx.Entries = append(idx.Entries, e)
	}
	// Extensions: a 4-byte signature and a 4-byte length each.
	for off < len(body) {
		if off+8 > len(body) {
			return nil, true, index.ErrMalformedIndexFile
		}
		sig := body[off]
		size := int(be.Uint32(body[off+4:]))
		if sig < 'A' || sig > 'Z' {
			return nil, false, nil
		}
		if size < 0 || size > len(body)-off-8 {
			return nil, true, index.ErrMalformedIndexFile
		}
		off += 8 + size
	}
	return idx, true, nil
}
