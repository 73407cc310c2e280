// build.go: building Go's os/exec command, timed from inside Go, with no spawn.
//
//	build_go MODE N
//
// MODE command: exec.Command("/bin/true"), the builder the article timed;
// MODE context: exec.CommandContext(ctx, "/bin/true");
// MODE struct: a bare &exec.Cmd{Path, Args}, the struct without the builder.
// One build to warm up, then N; prints the mean nanoseconds per build on
// stdout. Each build is kept in a package variable, so that the compiler
// cannot drop it. Built three times (BUILD.bazel): by default, with Go's
// inliner off in this package (-gcflags=-l), and off everywhere
// (-gcflags=all=-l).
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// sink keeps every build alive past the loop.
var sink *exec.Cmd

const path = "/bin/true"

func main() {
	builds := map[string]func(ctx context.Context) *exec.Cmd{
		"command": func(context.Context) *exec.Cmd { return exec.Command(path) },
		"context": func(ctx context.Context) *exec.Cmd { return exec.CommandContext(ctx, path) },
		"struct":  func(context.Context) *exec.Cmd { return &exec.Cmd{Path: path, Args: []string{path}} },
	}
	var build func(context.Context) *exec.Cmd
	if len(os.Args) == 3 {
		build = builds[os.Args[1]]
	}
	if build == nil {
		fmt.Fprintln(os.Stderr, "usage: build_go command|context|struct N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "build_go: N must be a positive integer, not %q\n", os.Args[2])
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink = build(ctx)
	start := time.Now()
	for i := 0; i < n; i++ {
		sink = build(ctx)
	}
	fmt.Println(time.Since(start).Nanoseconds() / int64(n))
}
