// spawn.go: Go's os/exec timed from inside Go, for the runtime_spawn bench.
//
//	spawn_go MODE N PATH
//
// MODE command: exec.Command(PATH).Run(), the os/exec API;
// MODE startprocess: os.StartProcess(PATH, ...) and Process.Wait(), the raw
// call underneath it, doing the same work.
// One spawn to warm up, then N; prints the mean nanoseconds per spawn (spawn,
// exec, wait) on stdout.
//
//	spawn_go version
//
// prints the Go release it was built with.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "version" {
		fmt.Println(runtime.Version())
		return
	}
	if len(os.Args) != 4 || (os.Args[1] != "command" && os.Args[1] != "startprocess") {
		fmt.Fprintln(os.Stderr, "usage: spawn_go command|startprocess N PATH")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "spawn_go: N must be a positive integer, not %q\n", os.Args[2])
		os.Exit(2)
	}
	path := os.Args[3]
	spawn := func() error { return exec.Command(path).Run() }
	if os.Args[1] == "startprocess" {
		attr := &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}}
		spawn = func() error {
			p, err := os.StartProcess(path, []string{path}, attr)
			if err != nil {
				return err
			}
			s, err := p.Wait()
			if err == nil && !s.Success() {
				err = fmt.Errorf("%v", s)
			}
			return err
		}
	}
	if err := spawn(); err != nil {
		fmt.Fprintf(os.Stderr, "spawn_go: %s: %v\n", path, err)
		os.Exit(1)
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := spawn(); err != nil {
			fmt.Fprintf(os.Stderr, "spawn_go: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
	fmt.Println(time.Since(start).Nanoseconds() / int64(n))
}
