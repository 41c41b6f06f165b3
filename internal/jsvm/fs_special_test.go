package jsvm

import (
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestReaddirSpecialTypes: readdir's Dirents and stat's Stats name FIFOs,
// sockets and devices as Node does (the UV_DIRENT_* types and the S_IF*
// bits), and opening one fails with ENXIO, the store's errno for a file
// only the kernel can serve.
func TestReaddirSpecialTypes(t *testing.T) {
	fsys := newStore(t, map[string]string{"d/file": "x"})
	ctx := testCtx(t)
	for name, mode := range map[string]uint32{"fifo": vfs.S_IFIFO | 0o644, "sock": vfs.S_IFSOCK | 0o755, "chr": vfs.S_IFCHR | 0o600, "blk": vfs.S_IFBLK | 0o600} {
		dev := uint64(0)
		if mode&vfs.S_IFMT == vfs.S_IFCHR || mode&vfs.S_IFMT == vfs.S_IFBLK {
			dev = 1<<8 | 3
		}
		if err := fsys.Mknod(ctx, "/workspace/d/"+name, mode, dev); err != nil {
			t.Fatal(err)
		}
	}
	r := runJS(ctx, sharedBackend(t), fsys, job{src: `
import fs from 'node:fs/promises';
const kinds = (e) => ['isFile', 'isDirectory', 'isSymbolicLink', 'isFIFO', 'isSocket', 'isCharacterDevice', 'isBlockDevice'].filter((k) => e[k]()).join(',');
for (const e of await fs.readdir('d', { withFileTypes: true })) console.log(e.name, kinds(e), kinds(await fs.lstat('d/' + e.name)));
try { await fs.readFile('d/fifo'); } catch (e) { console.log(e.code); }
`})
	want := "blk isBlockDevice isBlockDevice\nchr isCharacterDevice isCharacterDevice\nfifo isFIFO isFIFO\nfile isFile isFile\nsock isSocket isSocket\nENXIO\n"
	if r.err != nil || r.stdout != want {
		t.Fatalf("stdout %q, want %q; stderr %q, err %v", r.stdout, want, r.stderr, r.err)
	}
}
