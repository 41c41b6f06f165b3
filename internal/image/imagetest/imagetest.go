// Package imagetest builds OCI images for tests: layers from a list of tar
// entries, written as an OCI image layout directory, an OCI archive or a
// docker save tarball, with go-containerregistry.
package imagetest

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Entry is one tar entry of a layer. Typeflag defaults to a regular file
// (a directory when Name ends in "/"); Mode to 0644 (0755 for directories).
type Entry struct {
	Name     string
	Body     string
	Typeflag byte
	Mode     int64
	Uid, Gid int
	Linkname string
	Devmajor int64
}

// File is a regular file entry whose content is the host file src.
func File(t testing.TB, name, src string, mode int64) Entry {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	return Entry{Name: name, Body: string(b), Mode: mode}
}

// Tar returns the entries as an uncompressed tar stream.
func Tar(t testing.TB, entries []Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mtime := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Typeflag: e.Typeflag, Mode: e.Mode, Uid: e.Uid, Gid: e.Gid, Linkname: e.Linkname, ModTime: mtime, Devmajor: e.Devmajor, Format: tar.FormatPAX}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
			if len(e.Name) > 0 && e.Name[len(e.Name)-1] == '/' {
				h.Typeflag = tar.TypeDir
			}
		}
		if h.Mode == 0 {
			h.Mode = 0o644
			if h.Typeflag == tar.TypeDir {
				h.Mode = 0o755
			}
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.Body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			io.WriteString(tw, e.Body)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Layer is a layer of the entries.
func Layer(t testing.TB, entries []Entry) v1.Layer {
	t.Helper()
	b := Tar(t, entries)
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// RawLayer is a layer whose stream is b as it is: a tar, or a compressed
// one (kept compressed as given).
func RawLayer(t testing.TB, b []byte) v1.Layer {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Image is an image of the layers with config cfg (Env, WorkingDir, User,
// ...), for linux/amd64.
func Image(t testing.TB, cfg v1.Config, layers ...v1.Layer) v1.Image {
	t.Helper()
	return ImageFor(t, "amd64", cfg, layers...)
}

// ImageFor is Image for linux/arch.
func ImageFor(t testing.TB, arch string, cfg v1.Config, layers ...v1.Layer) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.Config = cfg
	cf.OS, cf.Architecture = "linux", arch
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		t.Fatal(err)
	}
	return img
}

// WriteLayout writes img as an OCI image layout directory at dir.
func WriteLayout(t testing.TB, dir string, img v1.Image) {
	t.Helper()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img); err != nil {
		t.Fatal(err)
	}
}

// WriteDocker writes img as a docker save tarball at file, tagged ref.
func WriteDocker(t testing.TB, file, ref string, img v1.Image) {
	t.Helper()
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := tarball.WriteToFile(file, tag, img); err != nil {
		t.Fatal(err)
	}
}

// WriteOCIArchive writes img as an OCI archive (its layout as a tar) at file.
func WriteOCIArchive(t testing.TB, file string, img v1.Image) {
	t.Helper()
	dir := t.TempDir()
	WriteLayout(t, dir, img)
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h, err := tar.FileInfoHeader(fi, "")
		if err != nil {
			return err
		}
		h.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tw.Write(b)
		}
		return nil
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}
