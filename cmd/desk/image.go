package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

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
				if n == in {
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
	summary: "remove an image name (the unpacked image with its last name); its workspaces fall back to the default",
	help: `Remove an image only while no sandbox runs on it: a running sandbox would
lose its files. Workspaces that chose it fall back to the default image (or
the host's userland) at their next sandbox start.`,
}

func runImageRm(ctx context.Context, args []string, st streams) int {
	sp := imageRmSpec
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	s, err := openImages(*dir)
	if err == nil {
		err = s.Remove(pos[0])
	}
	if err != nil {
		return sp.fail(st, err)
	}
	return exitOK
}

var imageUseSpec = &cmdSpec{
	name: "image use", synopsis: "WS NAME|- [--images DIR]", minArgs: 2, maxArgs: 2,
	summary: "make workspace WS's sandbox use image NAME (-: the default again), from its next start",
}

func runImageUse(ctx context.Context, args []string, st streams) int {
	sp := imageUseSpec
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	name := pos[1]
	if name == "-" {
		name = ""
	}
	s, err := openImages(*dir)
	if err == nil {
		err = s.Use(pos[0], name)
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
	sp := imageDefaultSpec
	fl := sp.flags()
	dir := fl.String("images", "", "the image store's directory")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	name := pos[0]
	if name == "-" {
		name = ""
	}
	s, err := openImages(*dir)
	if err == nil {
		err = s.SetDefault(name)
	}
	if err != nil {
		return sp.fail(st, err)
	}
	return exitOK
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
		return &sandbox.Image{Root: img.Root, Env: img.Env, WorkingDir: img.WorkingDir, UID: img.UID, GID: img.GID, Shell: img.Shell}, nil
	}
}
