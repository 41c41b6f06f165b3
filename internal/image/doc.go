// Package image is desk's store of OCI images for the sandbox backend: an
// image given as an OCI image layout directory, an OCI archive (that layout
// as a tar) or a `docker save` tarball is read with go-containerregistry and
// unpacked once into a read-only root filesystem shared by every workspace
// that uses it; Store.Pull fetches one from a registry.
//
// # The store
//
// A directory (DefaultDir, /var/lib/desk/images: outside desk's private
// data directories, and on the sandbox's default deny list) holding:
//
//	sha256-HEX/rootfs      the unpacked root (HEX: the manifest's digest)
//	sha256-HEX/image.json  Info: digest, size, the config's Env, WorkingDir, User (resolved to UID:GID), the shell
//	index.json             names → images, workspaces → names, the default name, the workspaces whose root is writable
//
// Its directories are 0710 with group HostID, so a sandbox's root (host uid
// HostID) can pass through them to a rootfs while no other host user can.
// Writers (Import, Remove, Use, SetDefault, SetWritable) hold an flock on DIR/.lock; an
// image is unpacked in DIR/.unpack-* and renamed into place, so a half-made
// one is never found; index.json is replaced by rename.
//
// # Unpacking
//
// Layers are applied in order (Store.Import; unpacker.apply): regular files
// (created O_EXCL|O_NOFOLLOW), directories (a directory over a directory
// keeps its content), symbolic links (their targets are kept as they are:
// they resolve inside the sandbox), hard links (to a non-directory already
// in the root), FIFOs; whiteouts (.wh.NAME removes NAME from the lower
// layers) and opaque whiteouts (.wh..wh..opq empties its directory of what
// lower layers put there, keeping what its own layer adds). Owners are
// shifted into the sandbox's ids (image uid N is host uid HostID+N; ids
// past IDCount are refused), then modes are set (set-id and sticky bits
// included: the sandbox runs with no_new_privs, and the root is read-only),
// then modification times. Refused, as ErrHostile, with the entry named: a
// ".." element (path traversal), a NUL byte, a parent that is a symbolic
// link (a write, a whiteout or a hard link through it would land outside the
// root), a whiteout of "." or "..", a hard link to a directory, a character
// or block device. Extended attributes are not applied. Limits.MaxBytes
// (16 GiB of file content) and MaxEntries (1 Mi entries) bound an import.
// After the layers, the mount points a sandbox needs are made where missing
// (/workspace, /tmp, /proc, /dev, /.desk/init and the egress proxy's files,
// the home, /etc/hostname, /etc/hosts, /etc/resolv.conf; a symbolic link at
// one of those files is replaced by an empty file).
//
// # Pulling
//
// Store.Pull fetches an image from its registry with go-containerregistry's
// remote and unpacks it like an import (Store.add; the same unpacker and
// checks). A reference by digest must match the manifest the registry
// sends; every blob is verified against its manifest's digest and size as
// it streams, and each layer stream is read to its end before the image is
// kept (a forged blob fails the pull; the temporary directory goes).
// PullOptions.Platform picks an index's image (default linux/GOARCH);
// PullOptions.Auth gives credentials (cmd/desk passes a workspace secret;
// the store never reads credential files), sent only to the hosts
// PullOptions.AuthHosts allows. Info.Source is the pinned reference
// (REPO@sha256:HEX of the manifest or index). Bounds, as ErrTooLarge:
// Limits.MaxDownload (8 GiB) against the sizes the manifest declares before
// any layer is fetched and against the bytes received (a counting
// transport), Limits.MaxManifestBytes (4 MiB) per manifest, and, for
// imports too, each uncompressed layer stream at its files' size plus 4 KiB
// per entry plus 2 MiB (a compression bomb, data after the tar). The pull
// is the machine's, through PullOptions.Transport (default: Go's, with
// HTTPS_PROXY): no workspace's egress policy applies (docs/decisions.md).
// PullOptions.Jobs layers (default 3, at most 16) are fetched at once, in
// their order, each into a temporary file of the store (DIR/.pull-*,
// removed as the layer is unpacked and when the pull ends: at most
// MaxDownload of disk), while the unpacker applies the layers received in
// order. Progress reports each layer's fetch, arrival and unpacking, and
// the bytes received.
//
// # In use
//
// Store.Hold marks an image in use for as long as a sandbox runs on it
// (cmd/desk's Options.Image holds it; the sandbox releases it once stopped):
// a shared flock on DIR/ID/in-use, so it holds across processes (desk serve
// against desk image rm) and ends with a process that dies. Remove of an
// image's last name takes that lock exclusively without waiting: held, it
// fails with ErrInUse and syscall.EBUSY and changes nothing (not even the
// index); free, it keeps the lock while it renames the image away and
// deletes it, so a Hold that raced it waits, then finds the image gone
// (ErrNotFound) and the sandbox's start fails rather than run on a
// half-deleted root. A name that is not the image's last goes at once.
package image
