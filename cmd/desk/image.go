package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/image"
	"github.com/desk-dev/desk/internal/sandbox"
)

// envImages overrides the image store's directory (image.DefaultDir), for
// desk image and for desk serve's sandboxes alike.
const envImages = "DESK_IMAGES"

// imageDir is the image store's directory: --images, else $DESK_IMAGES,
// else image.DefaultDir.
func imageDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if d := os.Getenv(envImages); d != "" {
		return d
	}
	return image.DefaultDir
}

// imageGroup is `desk image`: OCI images a workspace's sandbox can use
// instead of the host's userland.
var imageGroup = &group{
	name: "image",
	summary: "OCI images for the sandbox, on this machine (as root; no server needed): import\n" +
		"an OCI layout directory, OCI archive or docker save tarball, list and remove\n" +
		"them, choose a workspace's image or the default one. The store is\n" +
		image.DefaultDir + " ($" + envImages + " or --images moves it), shared by every\n" +
		"desk server of the machine; a sandbox starting picks its workspace's image.",
}

func init() {
	imageGroup.verbs = []groupVerb{
		{imageImportSpec, runImageImport},
		{imagePullSpec, runImagePull},
		{imageLsSpec, runImageLs},
		{imageRmSpec, runImageRm},
		{imageUseSpec, runImageUse},
		{imageDefaultSpec, runImageDefault},
	}
}

// openImages parses the --images flag's value into the store.
func openImages(dir string) (*image.Store, error) {
	return image.Open(imageDir(dir), image.Options{HostID: sandbox.DefaultHostID, IDCount: sandbox.DefaultIDCount, Home: sandbox.DefaultHome})
}

var imageImportSpec = &cmdSpec{
	name: "image import", synopsis: "FILE NAME [--images DIR] [--json]", minArgs: 2, maxArgs: 2,
	summary: "unpack an image (OCI layout directory, OCI archive, docker save tarball) once, as NAME",
	help: `The image's layers are applied into a read-only root shared by every
workspace that uses it (unpacked once: importing the same image again, under
another name, reuses it), its owners shifted into the sandbox's ids. Layers
that escape the root (.. in a name, writes or whiteouts through a symbolic
link, hard links out), and device nodes, are refused. The image config's Env,
WorkingDir and User apply to executions. The init (this desk binary) runs in
the image: a desk built with CGO_ENABLED=0 runs in any image; a dynamically
linked one needs the image to have a compatible C library.`,
}

func runImageImport(ctx context.Context, args []string, st streams) int {
	sp := imageImportSpec
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory (default $"+envImages+" or "+image.DefaultDir+")")
	asJSON := fl.Bool("json", false, "print the image as JSON")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	s, err := openImages(*dir)
	if err != nil {
		return sp.fail(st, err)
	}
	info, err := s.Import(ctx, pos[0], pos[1])
	if err != nil {
		return sp.fail(st, err)
	}
	if *asJSON {
		json.NewEncoder(st.out).Encode(info)
		return exitOK
	}
	fmt.Fprintf(st.out, "%s %s\n", info.ID, strings.Join(info.Names, ","))
	return exitOK
}

var imagePullSpec = &cmdSpec{
	name: "image pull", synopsis: "REF [NAME] [--platform OS/ARCH[/VARIANT]] [--auth-secret WS/SECRET [--data DIR]] [--max-download SIZE] [--jobs N] [--images DIR] [--json]", minArgs: 1, maxArgs: 2,
	summary: "pull an image from a registry (REGISTRY/REPO:TAG or @sha256:DIGEST) and unpack it once, as NAME (default REF)",
	help: `The image is fetched by this machine (not through a workspace's egress
policy: a pull is the operator's, like apt-get; HTTPS_PROXY and NO_PROXY
apply), verified (a reference by digest must match what the registry sends;
every blob its manifest's digest and size) and unpacked like desk image
import, as shared, read-only root. Already unpacked (same manifest digest),
only the manifest is fetched. The pinned reference (REPO@sha256:...) is
printed and kept (desk image ls --json: source): pull that to get the same
image again. From a multi-platform index, the image of --platform is taken
(default linux/` + runtime.GOARCH + `).

Credentials come from desk's secrets, never from a file of their own:
--auth-secret WS/SECRET takes workspace WS's secret SECRET (desk secret set
WS SECRET --host REGISTRY-HOST, its value USER:PASSWORD or USER:TOKEN) from
the data directory (--data, default ./desk-data), and sends it only to the
hosts the secret is bound to (a registry whose token service is another host
needs that host bound too).

--max-download bounds the compressed bytes received (default 8GiB; checked
against the manifest first); the unpacked files are bounded like an import
(16 GiB, 1 Mi entries). --jobs layers are fetched at once (default 3, at most
16; each into a temporary file of the store, removed once unpacked), while
the layers received are unpacked in order. Progress goes to standard error.`,
}

func runImagePull(ctx context.Context, args []string, st streams) int {
	sp := imagePullSpec
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory (default $"+envImages+" or "+image.DefaultDir+")")
	platform := fl.String("platform", "", "the platform to take from a multi-platform index: OS/ARCH[/VARIANT] (default linux/"+runtime.GOARCH+")")
	authSecret := fl.String("auth-secret", "", "the registry credentials: workspace `WS/SECRET`'s secret (value USER:PASSWORD)")
	data := fl.String("data", "./"+host.DefaultDataDir, "the data directory holding --auth-secret's secret")
	maxDownload := fl.String("max-download", "", "the most compressed bytes to receive (e.g. 2GiB; default 8GiB)")
	asJSON := fl.Bool("json", false, "print the image as JSON")
	quiet := fl.Bool("q", false, "no progress on standard error")
	jobs := fl.Int("jobs", image.DefaultPullJobs, "layers fetched at once (1 to 16)")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	if *jobs < 1 || *jobs > image.MaxPullJobs {
		return sp.usageError(st, fl, usagef("--jobs %d: want 1 to %d", *jobs, image.MaxPullJobs))
	}
	po := image.PullOptions{Jobs: *jobs}
	if *platform != "" {
		p, err := v1.ParsePlatform(*platform)
		if err != nil || p.OS == "" || p.Architecture == "" {
			return sp.usageError(st, fl, usagef("--platform %q: want OS/ARCH[/VARIANT], e.g. linux/arm64", *platform))
		}
		po.Platform = p
	}
	var limits image.Limits
	if *maxDownload != "" {
		n, err := parseByteSize(*maxDownload)
		if err != nil || n <= 0 {
			return sp.usageError(st, fl, usagef("--max-download %q: want a size such as 512MiB or 2GiB", *maxDownload))
		}
		limits.MaxDownload = n
	}
	if *authSecret != "" {
		ws, secret, ok := strings.Cut(*authSecret, "/")
		if !ok || ws == "" || secret == "" {
			return sp.usageError(st, fl, usagef("--auth-secret %q: want WS/SECRET", *authSecret))
		}
		auth, hosts, err := registrySecret(*data, ws, secret)
		if err != nil {
			return sp.fail(st, err)
		}
		po.Auth, po.AuthHosts = auth, hosts
	}
	if !*quiet {
		po.Progress = func(p image.Progress) {
			if p.Event == image.EventUnpack {
				fmt.Fprintf(st.err, "desk image pull: layer %d/%d %s (%s)\n", p.Layer, p.Layers, shortDigest(p.Digest), humanBytes(p.Size))
			}
		}
	}
	s, err := image.Open(imageDir(*dir), image.Options{HostID: sandbox.DefaultHostID, IDCount: sandbox.DefaultIDCount, Home: sandbox.DefaultHome, Limits: limits})
	if err != nil {
		return sp.fail(st, err)
	}
	name := pos[0]
	if len(pos) > 1 {
		name = pos[1]
	}
	info, err := s.Pull(ctx, pos[0], name, po)
	if err != nil {
		return sp.fail(st, err)
	}
	if *asJSON {
		json.NewEncoder(st.out).Encode(info)
		return exitOK
	}
	fmt.Fprintf(st.out, "%s %s %s\n", info.ID, strings.Join(info.Names, ","), info.Source)
	return exitOK
}

// shortDigest is sha256:HEX cut to 12 hex digits.
func shortDigest(d string) string {
	if alg, hex, ok := strings.Cut(d, ":"); ok && len(hex) > 12 {
		return alg + ":" + hex[:12]
	}
	return d
}

// registrySecret is workspace ws's secret name as registry credentials:
// its value USER:PASSWORD as Basic credentials, and the hosts it is bound to.
func registrySecret(data, ws, name string) (authn.Authenticator, func(string) bool, error) {
	secrets, _, err := egress.OpenStore(data).Bound(ws)
	if err != nil {
		return nil, nil, fmt.Errorf("read the registry secret: %w", err)
	}
	for _, sec := range secrets {
		if sec.Name != name {
			continue
		}
		user, pass, ok := strings.Cut(sec.Value, ":")
		if !ok {
			return nil, nil, fmt.Errorf("secret %s of %s: want the value USER:PASSWORD for a registry", name, ws)
		}
		var hosts []string
		for _, h := range sec.Hosts {
			hosts = append(hosts, strings.ToLower(h.Host))
		}
		bound := func(host string) bool {
			host = strings.ToLower(host)
			for _, h := range hosts {
				if h == host || strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:]) {
					return true
				}
			}
			return false
		}
		return &authn.Basic{Username: user, Password: pass}, bound, nil
	}
	return nil, nil, fmt.Errorf("secret %s of workspace %s: %w (in %s; desk secret set)", name, ws, egress.ErrNotFound, data)
}

var imageLsSpec = &cmdSpec{
	name: "image ls", synopsis: "[--images DIR] [--json]", maxArgs: 0,
	summary: "list the images, the workspaces that chose one and the default",
}

func runImageLs(ctx context.Context, args []string, st streams) int {
	sp := imageLsSpec
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory")
	asJSON := fl.Bool("json", false, "print the images as JSON, one per line")
	_, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	s, err := imageStoreIfAny(*dir)
	if err != nil || s == nil {
		if err == nil {
			fmt.Fprintln(st.err, "desk image ls: no image store at "+imageDir(*dir))
			return exitOK
		}
		return sp.fail(st, err)
	}
	l, err := s.List()
	if err != nil {
		return sp.fail(st, err)
	}
	ws, def, err := s.Choices()
	if err != nil {
		return sp.fail(st, err)
	}
	writable, err := s.Writable()
	if err != nil {
		return sp.fail(st, err)
	}
	if *asJSON {
		enc := json.NewEncoder(st.out)
		for _, i := range l {
			enc.Encode(i)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMES\tID\tSIZE\tUSER\tWORKDIR\tUSED BY")
	for _, i := range l {
		var users []string
		for w, n := range ws {
			for _, in := range i.Names {
				if n == in && writable[w] {
					users = append(users, w+"(writable)")
				} else if n == in {
					users = append(users, w)
				}
			}
		}
		for _, in := range i.Names {
			if in == def {
				users = append(users, "(default)")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", strings.Join(i.Names, ","), i.ID[:min(len(i.ID), 19)], i.Size, i.User, i.WorkingDir, strings.Join(users, ","))
	}
	tw.Flush()
	return exitOK
}

// imageStoreIfAny opens the store if its directory exists (nil otherwise).
func imageStoreIfAny(dir string) (*image.Store, error) {
	if _, err := os.Stat(imageDir(dir)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return openImages(dir)
}

var imageRmSpec = &cmdSpec{
	name: "image rm", synopsis: "NAME [--images DIR]", minArgs: 1, maxArgs: 1,
	summary: "remove an image name (the unpacked image with its last name; refused while a sandbox runs on it); its workspaces fall back to the default",
	help: `The unpacked image goes with its last name, unless a sandbox runs on it
(a warm sandbox of desk serve on this machine): then nothing is removed and
the command fails with EBUSY; try again once those sandboxes have stopped
(after 5 minutes with nothing running, when their workspace closes, or with
the server). Workspaces that chose it fall back to the default image (or
the host's userland) at their next sandbox start.`,
}

func runImageRm(ctx context.Context, args []string, st streams) int {
	return imageRmSpec.onImages(args, st, func(s *image.Store, pos []string) error {
		return s.Remove(pos[0])
	})
}

// onImages runs a command on the image store (--images DIR): it parses args
// (help, or a usage error, ends the command), opens the store, runs fn with
// it and the positional arguments and returns the exit status, reporting
// an error.
func (sp *cmdSpec) onImages(args []string, st streams, fn func(s *image.Store, pos []string) error) int {
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	s, err := openImages(*dir)
	if err == nil {
		err = fn(s, pos)
	}
	if err != nil {
		return sp.fail(st, err)
	}
	return exitOK
}

// imageName is an image NAME argument: "-" is none (the default again).
func imageName(arg string) string {
	if arg == "-" {
		return ""
	}
	return arg
}

var imageUseSpec = &cmdSpec{
	name: "image use", synopsis: "WS NAME|- [--writable|--read-only] [--images DIR]", minArgs: 2, maxArgs: 2,
	summary: "make workspace WS's sandbox use image NAME (-: the default again), from its next start",
	help: `--writable makes the sandbox's root writable: an overlay over the image's
shared read-only root whose changes are kept in the workspace's store, below
/.sandbox/root (upper: the changed files, overlayfs's whiteouts for deleted
ones), so apt-get, dpkg or pip installing into /usr keep their files across
sandbox restarts, and the other backends see them there. The cost: every
file the sandbox changes is stored in the workspace (a package's files count
against its quota), and a changed file of the image is first copied whole
into the store. The layer belongs to its image: after a change of image the
sandbox refuses to start until /.sandbox/root is removed (desk fs rm -r WS
/.sandbox/root). --read-only makes it read-only again (the layer is kept);
without either flag the setting is left as it is. The host's userland (no
image) is never writable.`,
}

func runImageUse(ctx context.Context, args []string, st streams) int {
	sp := imageUseSpec
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory")
	writable := fl.Bool("writable", false, "make the sandbox's root writable, its changes kept in the workspace")
	readOnly := fl.Bool("read-only", false, "make the sandbox's root read-only again")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	if *writable && *readOnly {
		return sp.usageError(st, fl, usagef("--writable and --read-only contradict each other"))
	}
	s, err := openImages(*dir)
	if err == nil {
		err = s.Use(pos[0], imageName(pos[1]))
	}
	if err == nil && (*writable || *readOnly) {
		err = s.SetWritable(pos[0], *writable)
	}
	if err != nil {
		return sp.fail(st, err)
	}
	return exitOK
}

var imageDefaultSpec = &cmdSpec{
	name: "image default", synopsis: "NAME|- [--images DIR]", minArgs: 1, maxArgs: 1,
	summary: "make NAME the image of every workspace that chose none (-: the host's userland)",
}

func runImageDefault(ctx context.Context, args []string, st streams) int {
	return imageDefaultSpec.onImages(args, st, func(s *image.Store, pos []string) error {
		return s.SetDefault(imageName(pos[0]))
	})
}

// sandboxImages is the sandbox backend's Options.Image: the image the
// workspace chose in the image store, else the store's default; the host's
// userland when there is no store, or no choice.
func sandboxImages(dir string) sandbox.ImageFunc {
	return func(ctx context.Context, ws sandbox.Workspace) (*sandbox.Image, error) {
		s, err := imageStoreIfAny(dir)
		if err != nil || s == nil {
			return nil, err
		}
		img, ok, err := s.ForWorkspace(ws.Name, "")
		if err != nil || !ok {
			return nil, err
		}
		release, err := s.Hold(img) // desk image rm refuses it until the sandbox stops
		if err != nil {
			return nil, err
		}
		return &sandbox.Image{Root: img.Root, Env: img.Env, WorkingDir: img.WorkingDir, UID: img.UID, GID: img.GID, Shell: img.Shell,
			ID: img.ID, Writable: img.Writable, Release: release}, nil
	}
}

// parseByteSize parses a size: digits and an optional unit, B, K/KiB, M/MiB,
// G/GiB or T/TiB (powers of 1024; KB, MB, GB, TB mean the same).
func parseByteSize(s string) (int64, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: want digits and a unit (B, KiB, MiB, GiB, TiB)", s)
	}
	unit := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s[i:])), "B"), "I")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit (B, KiB, MiB, GiB, TiB)", s)
	}
	if n > (1<<63-1)>>sh {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return n << sh, nil
}

// imageService is the API's image store (api.Options.Images): the
// machine's, at dir, with registry secrets from the data directory data.
type imageService struct{ dir, data string }

var _ api.ImageService = imageService{}

// Pull pulls req.Ref as desk image pull does.
func (is imageService) Pull(ctx context.Context, req client.ImagePullRequest, progress func(client.ImagePullProgress)) (client.Image, error) {
	bad := func(err error) error {
		return &api.Error{Status: http.StatusBadRequest, Code: api.CodeInvalid, Message: err.Error()}
	}
	var po image.PullOptions
	if req.Platform != "" {
		p, err := v1.ParsePlatform(req.Platform)
		if err != nil || p.OS == "" || p.Architecture == "" {
			return client.Image{}, bad(fmt.Errorf("platform %q: want OS/ARCH[/VARIANT], e.g. linux/arm64", req.Platform))
		}
		po.Platform = p
	}
	if req.Jobs < 0 || req.Jobs > image.MaxPullJobs {
		return client.Image{}, bad(fmt.Errorf("jobs %d: want 1 to %d layers fetched at once (0: %d)", req.Jobs, image.MaxPullJobs, image.DefaultPullJobs))
	}
	po.Jobs = req.Jobs
	if progress != nil {
		po.Progress = func(p image.Progress) {
			progress(client.ImagePullProgress{Event: p.Event, Layer: p.Layer, Layers: p.Layers, Digest: p.Digest, Size: p.Size, Done: p.Done, Total: p.Total})
		}
	}
	if req.MaxDownload < 0 {
		return client.Image{}, bad(fmt.Errorf("max_download %d: want a positive byte count (0: the default)", req.MaxDownload))
	}
	if req.AuthSecret != "" {
		ws, secret, ok := strings.Cut(req.AuthSecret, "/")
		if !ok || ws == "" || secret == "" {
			return client.Image{}, bad(fmt.Errorf("auth_secret %q: want WS/SECRET", req.AuthSecret))
		}
		auth, hosts, err := registrySecret(is.data, ws, secret)
		if err != nil {
			return client.Image{}, bad(err)
		}
		po.Auth, po.AuthHosts = auth, hosts
	}
	s, err := image.Open(imageDir(is.dir), image.Options{HostID: sandbox.DefaultHostID, IDCount: sandbox.DefaultIDCount, Home: sandbox.DefaultHome, Limits: image.Limits{MaxDownload: req.MaxDownload}})
	if err != nil {
		return client.Image{}, err
	}
	info, err := s.Pull(ctx, req.Ref, req.Name, po)
	switch {
	case errors.Is(err, image.ErrTooLarge):
		return client.Image{}, &api.Error{Status: http.StatusRequestEntityTooLarge, Code: api.CodeTooLarge, Message: err.Error()}
	case errors.Is(err, image.ErrHostile):
		return client.Image{}, &api.Error{Status: http.StatusUnprocessableEntity, Code: api.CodeInvalid, Message: err.Error()}
	case err != nil && ctx.Err() == nil:
		return client.Image{}, &api.Error{Status: http.StatusBadGateway, Code: api.CodeBadGateway, Message: err.Error()}
	case err != nil:
		return client.Image{}, err
	}
	return clientImage(info), nil
}

// List lists the store's images (none when there is no store).
func (is imageService) List(ctx context.Context) ([]client.Image, error) {
	s, err := imageStoreIfAny(is.dir)
	if err != nil || s == nil {
		return nil, err
	}
	l, err := s.List()
	if err != nil {
		return nil, err
	}
	out := make([]client.Image, 0, len(l))
	for _, i := range l {
		out = append(out, clientImage(i))
	}
	return out, nil
}

func clientImage(i image.Info) client.Image {
	return client.Image{ID: i.ID, Digest: i.Digest, Source: i.Source, Names: i.Names, Size: i.Size, Added: i.Added,
		Env: i.Env, WorkingDir: i.WorkingDir, User: i.User, UID: i.UID, GID: i.GID, Shell: i.Shell}
}
