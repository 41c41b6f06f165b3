package gitws

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/desk-dev/desk/internal/vfs"
)

// maxBufferedObjectBytes bounds the compressed objects a command holds in
// memory before writing them (objStore.flush); maxBufferedObject is the
// largest object buffered at all (larger ones are written through go-git at
// once, as vfs.Batch keeps a batch's data in memory).
const (
	maxBufferedObjectBytes = 32 << 20
	maxBufferedObject      = 1 << 20
)

// objStore is go-git's storage of a repository, with loose objects
// optionally buffered (buffer) and written together in one store
// transaction (flush): go-git writes each loose object as a temporary file,
// its close and a rename, three or four store transactions per object,
// which made a commit of 100 changed files (100 blobs, 100 trees, the
// commit) cost some 800 transactions. Buffered objects are visible to
// every read through the objStore at once; they are flushed before any
// reference is written (a ref never names an object not yet stored), before
// the index is written (writeIndex), and when buffering ends.
type objStore struct {
	*filesystem.Storage
	ctx     context.Context
	fs      *vfs.FS
	gitDir  string
	buf     bool
	pending map[plumbing.Hash]pendingObject
	order   []plumbing.Hash
	size    int
}

type pendingObject struct {
	typ  plumbing.ObjectType
	data []byte // the content, uncompressed
	z    []byte // the loose object file: zlib of "type size\x00" + data
}

var (
	_ storer.EncodedObjectStorer = (*objStore)(nil)
	_ storer.ReferenceStorer     = (*objStore)(nil)
)

// buffer starts buffering loose objects; the function it returns flushes
// them and ends buffering.
func (s *objStore) buffer() func() error {
	s.buf = true
	return func() error {
		s.buf = false
		return s.flush()
	}
}

// SetEncodedObject stores o: buffered while buffering is on (an object
// already stored is not written again), else written by go-git.
func (s *objStore) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	if !s.buf || o.Size() > maxBufferedObject {
		return s.Storage.SetEncodedObject(o)
	}
	h := o.Hash()
	if _, ok := s.pending[h]; ok {
		return h, nil
	}
	if s.Storage.HasEncodedObject(h) == nil {
		return h, nil
	}
	rd, err := o.Reader()
	if err != nil {
		return h, err
	}
	data, err := io.ReadAll(rd)
	rd.Close()
	if err != nil {
		return h, err
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed) // git's core.looseCompression default
	zw.Write([]byte(o.Type().String() + " " + strconv.Itoa(len(data)) + "\x00"))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return h, err
	}
	if s.pending == nil {
		s.pending = map[plumbing.Hash]pendingObject{}
	}
	s.pending[h] = pendingObject{o.Type(), data, z.Bytes()}
	s.order = append(s.order, h)
	s.size += z.Len() + len(data)
	if s.size > maxBufferedObjectBytes {
		return h, s.flush()
	}
	return h, nil
}

// flush writes the buffered objects in one store transaction.
func (s *objStore) flush() error {
	if len(s.order) == 0 {
		return nil
	}
	err := s.fs.Batch(s.ctx, func(b *vfs.Batch) error {
		dirs := map[string]bool{}
		for _, h := range s.order {
			hx := h.String()
			dir := s.gitDir + "/objects/" + hx[:2]
			if !dirs[dir] {
				dirs[dir] = true
				if err := b.MkdirAll(dir, 0o755); err != nil {
					return err
				}
			}
			if err := b.WriteFile(dir+"/"+hx[2:], s.pending[h].z, 0o444); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write objects: %w", err)
	}
	s.pending, s.order, s.size = nil, nil, 0
	return nil
}

// EncodedObject reads an object, buffered ones included.
func (s *objStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if p, ok := s.pending[h]; ok {
		if t != plumbing.AnyObject && t != p.typ {
			return nil, plumbing.ErrObjectNotFound
		}
		o := &plumbing.MemoryObject{}
		o.SetType(p.typ)
		o.Write(p.data)
		return o, nil
	}
	return s.Storage.EncodedObject(t, h)
}

// HasEncodedObject reports whether an object is stored or buffered.
func (s *objStore) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := s.pending[h]; ok {
		return nil
	}
	return s.Storage.HasEncodedObject(h)
}

// EncodedObjectSize returns an object's size, buffered ones included.
func (s *objStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if p, ok := s.pending[h]; ok {
		return int64(len(p.data)), nil
	}
	return s.Storage.EncodedObjectSize(h)
}

// IterEncodedObjects lists the objects of a type, after a flush.
func (s *objStore) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	return s.Storage.IterEncodedObjects(t)
}

// SetReference stores a reference, the buffered objects first.
func (s *objStore) SetReference(ref *plumbing.Reference) error {
	if err := s.flush(); err != nil {
		return err
	}
	return s.Storage.SetReference(ref)
}

// CheckAndSetReference stores a reference if old is still current, the
// buffered objects first.
func (s *objStore) CheckAndSetReference(ref, old *plumbing.Reference) error {
	if err := s.flush(); err != nil {
		return err
	}
	return s.Storage.CheckAndSetReference(ref, old)
}
