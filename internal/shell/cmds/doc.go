// Package cmds holds the commands of the shell backend, written in Go over
// the workspace store: one file per command, each registering itself with
// Register from an init function. The shell (package shell) looks commands up
// by name; nothing here touches the host: files go through Env.FS, paths are
// resolved against Env.Dir with Env.Abs, the environment is Env.Getenv.
//
// Behaviour, output and messages follow GNU coreutils (and grep, sed, ...) on
// Debian: the same flags agents use, the same diagnostics ("ls: cannot access
// 'x': No such file or directory"), the same exit statuses. Names and values
// in diagnostics are quoted by the functions of quote.go (quote, quoteaf,
// quotef), which follow the locale of Env.Getenv as gnulib does: ‘x’ in a
// UTF-8 locale, 'x' in C. Each command has table tests in its own _test.go
// file, run here directly against a vfs store (with LANG=C.UTF-8, or LC_ALL=C
// for the file tools' tables, the locale each confirm runner gives the real
// tools), and the shell package's compatibility table confirms the behaviour
// against real bash and coreutils.
//
// Commands that are bash builtins in the interpreter (echo, printf, test, [,
// true, false, pwd, cd, export, read, type, command...) are the interpreter's,
// not this package's, unless a command needs its own version (for use from
// xargs or env).
//
// Long-running commands must check Env.Ctx (Kill and timeouts cancel it) in
// their loops, and must respect Env.Limits.MaxReadBytes when they hold input
// in memory. What they hold that grows with their input (a whole input, lines
// kept, a window, an output kept for a file, decoded values) is charged to
// Env.Mem, the execution's memory budget, before it is allocated (Env.Hold,
// readAllLimited, heldBuffer): when a charge fails the command stops (the
// execution is over its budget and already stopping, with its own message),
// and what a command still holds is returned when it ends. Per line kept a
// command charges lineCost (48 bytes) beyond the text, per byte of JSON jq
// charges jsonCost (64: gojq's values measured at up to 60 times the text),
// per line diff compares diffCost (160). TestMem_buffering checks each.
// Not charged: the values an awk program builds (GoAWK has no hook).
//
// # grep's block path
//
// grep reads its input in blocks of whole lines (256 KiB, pooled; a longer
// line grows the buffer, charged to Env.Mem, up to MaxReadBytes) wherever
// no line is printed for context or inverted (no -v, -A, -B, -C, -z): the
// literal every match must contain (search.Prefilter: the longest one the
// expression requires, case-insensitive through an ASCII-lowered copy where
// folding stays ASCII) is found over the whole block with bytes.Index, and
// the expression runs only on the lines holding it; an expression without
// one runs line by line over the block. Nothing is allocated per line, and
// line numbers are counted only when printed. The line path (a line at a
// time) serves the rest, and takes over from the block path at a NUL byte
// past the first 32 KiB, with the counts so far, so output is the same on
// both (TestGrep_gnu: both paths against each other and GNU grep 3.8).
// Known differences from GNU grep, the same on both paths: GNU suppresses
// output from the 96 KiB read buffer holding a late NUL, desk's grep from
// its line; Go's case folding takes the Kelvin sign for k under -i.
//
// # Walks and listings: what they read from the store
//
// find reads each directory whole before it visits its entries (as GNU
// find's fts does), a page of 4,096 names, inode numbers and modes at a time
// (vfs.ReadDirPage) when every predicate needs no more than that (-name,
// -path, -regex, -type, -perm, -inum, -prune, -print, -exec, -delete, ...;
// the list is fdNamesOnly), and with every entry's full attributes
// (vfs.ReadDirFiles) as soon as one predicate needs them (-size, -mtime,
// -newer, -user, -links, -empty, -printf, -ls, ...). A -name or -path
// pattern that is a literal with at most a "*" at either end is matched by
// comparing bytes, which answers what the compiled pattern answers. ls
// prints a listing that needs names only (no -l, -t, -S, -F, -R, -a, -m or
// -r) a page of 1,024 at a time as it reads it; the others gather the
// directory to sort and align it. cp -r lists each source directory in
// pages of 256 with the entries' attributes and the content of files of at
// most 64 KiB (vfs.ReadDirFiles), holding at most 4 MiB of such content
// over the directories being copied (charged to Env.Mem; past it files are
// opened one by one), and does not look up destinations under a directory
// it has just made. Into a directory it has just made, cp -r lists the
// whole source tree before writing (at most 16,384 entries read ahead;
// past that, directories are listed as they are copied), because a listing
// read after writes commits the execution's pending changes; and it writes
// each run of such small files of a directory in one vfs.FS.Batch (one
// request to the store, not one per file). A batch that fails is undone
// whole and its files are copied one by one, so errors and what is copied
// are those of the file-by-file path (TestCpTree_gnu compares the trees
// GNU cp makes, TestCpTree_batchRefused a refusal inside a batch). sed -i
// reads each file whole and runs the script over it with a line buffer the
// size of the file (at most 64 KiB; longer lines are gathered), into an
// output buffer sized from the input (TestSedInPlace_gnu compares the files
// and streams with GNU sed).
//
// jq parses its input directly over the bytes into gojq's values;
// encoding/json's tokenizer decodes only text the direct parser does not
// accept, from the start of that value, so values and error messages are
// the tokenizer's (TestJqDecode and FuzzJqDecode hold the two to each
// other). Plain sort (whole lines, bytewise, with or without -r) compares
// each line's first 8 bytes as a number before the bytes (32 bytes a line
// more, charged, while it sorts).
//
// # Network: curl and wget
//
// curl and wget send every request through Env.Net, the execution's
// network (run.Job.Net), which enforces the workspace's egress policy: a
// refused request is an ordinary response, 403 with a body saying why,
// which curl prints (and -f turns into exit 22) and wget reports as an
// error (exit 8; --content-on-error saves the body). Without a network
// (Env.Net nil) curl fails with exit 7, "curl: (7) Failed to connect to
// HOST port PORT: GET URL: no network: the workspace's egress policy is
// none", and wget with exit 4 and "wget: GET URL: no network: ..." (printed
// even under -q: the status alone would not say why). Files are written to
// the workspace (created 0644, truncated); /dev/null, /dev/stdout and
// /dev/stderr as outputs are the streams. Bodies stream through a 32 KiB
// buffer charged to Env.Mem; what a command holds whole (-d @file,
// --data-binary @-, -T file, --post-file) is read within MaxReadBytes and
// charged (past the budget curl exits 27, "Out of memory"). Kill and the
// execution's timeout cancel a transfer at once.
//
// curl 7.88 (TestCurl_real runs a table against the real curl on a loopback
// server and compares stdout, stderr when -s, the status and the files
// written): URLs without a scheme get http://; several URLs, each with its
// -o or -O in order. Options: -s -S -f --fail-with-body -L --max-redirs
// (50) -o FILE -O --remote-name-all -X -H ("Name:" removes a header,
// "Name;" sends it empty, a first -H of a name replaces curl's own) -d
// --data-ascii --data-binary --data-raw --data-urlencode (content, =content,
// name=content, @file, name@file; spaces as +) --json -G -I -i -w (with
// @file, \n \r \t, %{http_code} %{response_code} %{url_effective} %{url}
// %{content_type} %{size_download} %{size_upload} %{size_header}
// %{num_redirects} %{redirect_url} %{method} %{exitcode} %{errormsg}
// %{http_version} %{scheme} %{num_connects} %{time_*} %{speed_download}
// %header{name} %{stdout} %{stderr}; an unknown one is reported as curl
// does) -u USER:PASS -A -e -T FILE (PUT; a URL ending in / gets the file's
// name) -F/--form (name=value, name=@file with curl's type by extension
// and ;type= ;filename=, name=<file, @- for stdin) --form-string
// --compressed (asks for deflate, gzip and decodes them)
// --max-time -m --url -v; accepted and without effect: -k --insecure
// (certificates are Env.Net's business), -N, -g, -#, -q, --http1.1,
// --no-progress-meter, --create-dirs, --connect-timeout, --retry. Long
// options take their value as the next argument (curl has no --opt=value).
// Redirects under -L follow curl's rules: 301 and 302 turn a POST into a
// GET, 303 anything but HEAD, 307 and 308 resend the method and body, -X
// keeps its method, -u goes to the first host only. Exit statuses: 1
// unsupported protocol, 2 bad command line, 3 bad URL, 6 name not
// resolved, 7 connection failed (and no network), 22 HTTP error under -f,
// 23 output not writable, 26 -T file unreadable, 27 data too large, 28
// --max-time reached, 47 too many redirects, 52 empty reply, 55 and 56
// send and receive failures, 61 unknown content encoding. Differences:
// no progress meter (curl prints one to stderr when not -s and output is
// not a terminal); -i, -I and -v print the response headers sorted by name
// with Transfer-Encoding last (Go's client keeps no wire order; Go servers
// write a handler's headers in that order), and -v's request lines are
// curl's headers in curl's order but its connection notes are made up;
// without --compressed the request carries "Accept-Encoding: identity"
// (else Go's transport would ask for gzip and decode it), with it
// "deflate, gzip" (no br or zstd); -u USER without a password sends an
// empty one (no prompt); -F bodies are built whole in memory (charged);
// no cookies (-b, -c), no -r ranges,
// no --resolve, no proxies of its own, no FTP, FILE or other protocols.
//
// wget 1.21 (TestWget_real likewise, comparing stderr under -q): options
// -q -v -nv -S (the response's headers on stderr, also under -q, as wget)
// -O FILE (created before the first request, even when it fails; one file
// for all URLs) -O- -P DIR --header --post-data --post-file --method
// --body-data --body-file -U --user --password (sent when the server
// challenges, as wget without --auth-no-challenge) -T --max-redirect (20)
// --content-on-error; accepted: -t --tries (there is one try),
// --no-check-certificate, -nc, --progress, --show-progress, --no-cache.
// Long options may be abbreviated and take =value. Without -O a download
// is saved under the URL's last path segment (index.html for a directory),
// numbered .1, .2, ... when the name is taken. Exit statuses: 1 generic
// (bad URL), 2 bad command line, 3 file not writable, 4 network failure
// (refused, timeout, no network), 6 authentication failed (401), 8 server
// error (4xx, 5xx, too many redirects). Differences: the log on stderr
// (without -q) has wget's lines but not its progress bar or speeds; no
// retries, no recursion (-r), no -c, no timestamping, no robots.
//
// # Calculators: expr and bc
//
// expr is GNU expr 9.1 (TestExpr_gnu runs generated expressions through
// both): integers of any size (math/big, as GNU's GMP), its exit statuses
// 0 (a result neither empty nor zero), 1, 2 (syntax errors, bad operands,
// bad regular expressions) and 3 (a product whose operands' sizes pass
// MaxReadBytes); its BREs are grep's translation, anchored, leftmost
// longest, so back-references are refused and [[:alpha:]] is ASCII.
//
// bc is desk's own implementation of GNU bc 1.07's language (no Go
// library implements it: the one bc module is GNU's C translated, GPL,
// with no bounds), checked against GNU bc by TestBc_gnu (written and
// generated programs, with and without -l) and held to its limits by
// TestBc_limits and FuzzBc. Numbers are math/big integers with a
// decimal scale, with GNU's scale rules for each operator (the exact
// power truncated for ^, its negative zero included), constants read in
// ibase when they run (a lone digit is its value, a digit past the base
// in a longer number is the base's last), GNU's output in any obase
// (digits over 16 as space-separated decimal groups) wrapped at
// BC_LINE_LENGTH, GNU's grammar where it is odd (an assignment may
// stand wherever an operand does and binds tighter than a comparison;
// && gives its zero operand), and the units GNU runs: the statements up
// to a newline run together, a syntax error drops its line, a runtime
// error the rest of the unit, quit stops as it is read. The math library
// (-l: s c a l e j) is desk's own bc code, series with 12 to 14 guard
// digits truncated to the caller's scale, which gives GNU's digits on
// the tested values (GNU's library may differ in a last digit
// elsewhere). Differences: the byte code address in runtime messages is
// 0; after a syntax error the rest of the line is skipped, where GNU's
// yacc recovery sometimes reports a second error on the same line;
// read() is refused; -s and -w are accepted without their checks.
// Limits: bcMaxDigits (100,000) digits in any number and in scale (a
// runtime error past it, before the work: scale=200000, 2^10000000,
// 9^9^9), bcMaxNest (1,000) levels of nesting in the parser, bcMaxCalls
// (2,000) nested calls, array indexes below 16,777,215 (GNU's
// BC_DIM_MAX), variables and array elements charged to Env.Mem, the
// program within MaxReadBytes; every statement and loop checks Env.Ctx,
// so a long computation below the limits (scale=50000; 4*a(1)) ends
// with the execution's timeout or Kill.
//
// # What a workspace says about its system
//
// uname, arch, nproc, id, groups, tty and logname answer for the process
// the shell runs in (sysinfo.go): the kernel is the host's (uname -r,
// -v and -m from uname(2), GOARCH named as the kernel names it if that
// fails; -p and -i "unknown" and left out of -a, as Debian's), the node
// name is the workspace's, as hostname prints it ($HOSTNAME, else
// "workspace"), nproc is Go's runtime.NumCPU (the CPU affinity, as
// GNU's) lowered by OMP_NUM_THREADS and OMP_THREAD_LIMIT, and the
// identity is the store's: every file the shell writes is uid 0, so id,
// groups and whoami say root (uid=0(root) gid=0(root) groups=0(root)),
// as ls -l and the sandbox do; whoami, as GNU's, ignores $USER (which the
// shell sets to "user"). Standard input is never a terminal (tty: "not a
// tty", 1) and there is no login (logname: "no login name", 1).
//
// # Command wrappers: nohup, nice, stdbuf
//
// nohup, nice and stdbuf (wrappers.go) run their command through
// Env.Exec, as env and timeout do, after checking their options with
// GNU's messages and statuses (125 their own errors, 127 a command not
// found). What they change in a process has no meaning in process: there
// are no hangup signals, and since standard input, output and error are
// never a terminal nohup neither writes nohup.out nor prints "ignoring
// input" (as GNU's nohup when they are not terminals); there is no
// scheduling priority, so nice validates its adjustment (clamped to -20
// .. 19, a negative one accepted as for root) and ignores it, and nice
// without a command prints 0 (also under "nice -n 5 nice", where GNU
// prints 5); commands write straight to the execution's streams, so
// stdbuf validates its modes (L, 0, a size; L refused for -i) and
// ignores them. The policy and route parsers skip these wrappers' options
// and values to the command they run (internal/policy, shell.Route).
//
// # Sizes, owners, names and special files: truncate, chown, chgrp, unlink, install, mknod
//
// truncate sets sizes as GNU's does (-s with gnulib's suffixes, K to Y,
// KB, KiB, and the modifiers + - < > / %; -r, -o in the store's 4,096-byte
// I/O blocks, -c); the store bounds a file at Options.MaxFileSize (64 GiB
// by default: past it "File too large"), and what it extends is a hole.
// chown and chgrp change the store's uid and gid (vfs.FS.Chown, Lchown:
// as Linux, a non-directory's set-user-ID bit is cleared), with GNU's
// specs (OWNER:GROUP, :GROUP, OWNER: for the login group, OWNER.GROUP
// with its warning), -R with -H -L -P (directory entries in name order,
// each directory after its contents, as fts visits it), -h,
// --dereference, --from, --reference, -c -v -f and --preserve-root. The
// workspace has no user database: root is the one name (uid and gid 0,
// its own login group), any other owner is given and shown as a number.
// unlink removes one name as unlink(2): never a directory (EISDIR), and
// a trailing slash on anything else is ENOTDIR. install copies as GNU's
// (SOURCE DEST, into a directory, -t, -T, -d, -D, -m from 0 and 0755 by
// default, -o, -g, -p, -C, -v, -b, --backup and -S): an existing
// destination is removed and written anew; -s fails as GNU's does when
// it cannot run strip, since the backend runs no programs. mknod makes
// FIFOs and block and character devices as inodes of the store
// (vfs.FS.Mknod, as mkfifo does): the backend opens none (ENXIO), a
// sandbox's kernel pipes through a FIFO and refuses a device (nodev);
// numbers past Linux's encoding (major 4095, minor 1048575) are EINVAL,
// as mknod(2) says.
// TestTruncate_gnu, TestChown_gnu, TestChgrp_gnu, TestUnlink_gnu and
// TestInstall_gnu, TestMknod_gnu compare each row's
// output, status and the tree left (contents, modes, owners) with the GNU
// tool's on a host directory (foRunGNU; as root, which the real tools
// need to give files away).
//
// # Checksums: cksum and b2sum
//
// cksum (cksum.go) is GNU 9.1's: the POSIX CRC (-a crc, the default),
// sum -s's and sum -r's checksums (-a sysv, bsd), and with -a md5, sha1,
// sha224, sha256, sha384, sha512 or blake2b the digest through the
// md5sum family's code (hashsum.go: digestSum), tagged unless
// --untagged, checked with -a ALGO -c. b2sum is BLAKE2b
// (golang.org/x/crypto/blake2b) with -l BITS; b2sum -c takes each
// line's length from its tag or its hash, as GNU's. Differences: -a sm3
// is refused (no SM3 in Go's libraries); cksum -c without -a is refused
// as for crc, where GNU detects the algorithm of tagged lines.
// TestCksum_gnu compares every algorithm and b2sum length over files of
// the sizes at the block edges with GNU's tools.
//
// # shuf
//
// shuf (shuf.go) draws as GNU's: gnulib's randint (as few bytes of the
// random source as each choice needs, big-endian, with rejection that
// keeps the unused randomness), randperm (a partial Fisher-Yates shuffle)
// and, for -n over a pipe or a file of 8 MiB or more, GNU's reservoir, so
// that with the same --random-source FILE the output is GNU's byte for
// byte (TestShuf_gnu compares 400 generated runs). /dev/urandom and
// /dev/random as the source are crypto/rand, /dev/zero zeros, /dev/null
// empty ("end of file", as GNU). Bounds: the input is read whole within
// MaxReadBytes (or a reservoir of -n lines); the permutation keeps 8 bytes
// per position (a dense table) or about 48 per draw (a map of the
// positions swapped, same result), whichever is less, charged to Env.Mem
// and refused past MaxReadBytes before any output: shuf -n 3 -i
// 1-18446744073709551615 is immediate, shuf -i 1-1000000000000 without -n
// is refused where GNU would try to allocate 8 TB. shuf -r without -n is
// endless, as GNU's, until Kill or the timeout.
package cmds
