// Package gittest holds test helpers around the machine's real git, for the
// tests of every package that works with gitws (the shell and js backends,
// the sandbox, the API and the CLI). Only tests import it.
//
//   - Git, GitErr, Env, Identity: the real git with a fixed identity and
//     dates, so that commit ids are the same wherever the same content is
//     committed.
//   - Server: the real git http-backend under net/http/cgi on 127.0.0.1,
//     pushes included; SmallRepo, a two-commit bare repository for it.
//   - Big: a bare repository of N files and M commits written by one git
//     fast-import (10,000 files and 500 commits in a few seconds);
//     BigScript, the bash script the big-repository tests run through
//     desk and through the real git; Bash runs it on the host; FirstDiff
//     says where two outputs part.
//   - Export and Import: copy a tree between the store and a host
//     directory, for the real git to read what desk wrote, or the reverse.
package gittest
