// Command pause is the Pod sandbox process of the test node (containerd's sandbox_image): it holds
// the Pod's namespaces, reaps children that are reparented to it (it is PID 1 when the Pod shares its
// PID namespace) and exits with code 0 on SIGINT or SIGTERM. The test node also runs it as the holder
// of the node's own network and mount namespaces. Built static (CGO off) by test/kube/build.sh and
// packed into a FROM-scratch image by test/kube/oci.ts; no registry is reachable here.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		fmt.Println("clusterset test pause")
		return
	}
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
