// Command argocd runs Argo CD's own application controller and repo server, from
// github.com/argoproj/argo-cd/v3 at the version pinned in go.mod (v3.2.6), for the end-to-end tests
// (test/delivery/argocd.ts):
//
//	argocd application-controller [flags]   // cmd/argocd-application-controller/commands NewCommand
//	argocd repo-server [flags]              // cmd/argocd-repo-server/commands NewCommand
//
// Argo CD's one binary (cmd/main.go) picks the command by the name it runs as, or by
// ARGOCD_BINARY_NAME; this one picks it by its first argument, and otherwise does what that main
// does: klog logs through logrus (its init), then the cobra command runs with the rest of the
// arguments. Like that main, it honours ARGOCD_BINARY_NAME=argocd-git-ask-pass: the repo server
// runs git with GIT_ASKPASS=argocd and that variable set (util/askpass), so `argocd` on the repo
// server's PATH answers git's credential prompts from the repo server (repositories with
// credentials). Nothing else of ours is in between.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	gitaskpass "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/util/log"
)

func init() {
	// As Argo CD's cmd/main.go: klog uses the configured log level and format.
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
}

func main() {
	if os.Getenv("ARGOCD_BINARY_NAME") == "argocd-git-ask-pass" {
		// As cmd/main.go: the command reads its one argument (git's prompt) from os.Args.
		command := gitaskpass.NewCommand()
		command.SilenceErrors = true
		command.SilenceUsage = true
		if err := command.Execute(); err != nil {
			os.Exit(1)
		}
		return
	}
	commands := map[string]func() *cobra.Command{
		"application-controller": appcontroller.NewCommand,
		"repo-server":            reposerver.NewCommand,
	}
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: argocd application-controller|repo-server [flags]")
		os.Exit(2)
	}
	command := commands[os.Args[1]]()
	command.SetArgs(os.Args[2:])
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}
