// Command etcd is a minimal single-member etcd for test control planes, built from
// go.etcd.io/etcd/server/v3/embed at the version k8s.io/kubernetes itself requires.
//
// Usage: etcd --data-dir DIR --listen-client-url http://127.0.0.1:PORT --listen-peer-url http://127.0.0.1:PORT
//
// It exits 0 on SIGINT/SIGTERM after closing the server, and non-zero if the server fails.
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

func mustURL(name, raw string) url.URL {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		fmt.Fprintf(os.Stderr, "etcd: invalid --%s %q\n", name, raw)
		os.Exit(2)
	}
	return *u
}

func main() {
	name := flag.String("name", "default", "member name")
	dataDir := flag.String("data-dir", "", "data directory (required)")
	client := flag.String("listen-client-url", "http://127.0.0.1:2379", "client URL to listen on and advertise")
	peer := flag.String("listen-peer-url", "http://127.0.0.1:2380", "peer URL to listen on and advertise")
	logLevel := flag.String("log-level", "warn", "debug, info, warn, error")
	quota := flag.Int64("quota-backend-bytes", 2<<30, "backend quota in bytes")
	flag.Parse()
	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "etcd: --data-dir is required")
		os.Exit(2)
	}

	cfg := embed.NewConfig()
	cfg.Name = *name
	cfg.Dir = *dataDir
	cu, pu := mustURL("listen-client-url", *client), mustURL("listen-peer-url", *peer)
	cfg.ListenClientUrls = []url.URL{cu}
	cfg.AdvertiseClientUrls = []url.URL{cu}
	cfg.ListenPeerUrls = []url.URL{pu}
	cfg.AdvertisePeerUrls = []url.URL{pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ListenMetricsUrls = nil
	cfg.LogLevel = *logLevel
	cfg.LogOutputs = []string{"stderr"}
	cfg.QuotaBackendBytes = *quota
	// Test clusters are short-lived: keep the in-memory raft log small.
	cfg.SnapshotCount = 10000

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "etcd: start: %v\n", err)
		os.Exit(1)
	}
	select {
	case <-e.Server.ReadyNotify():
		fmt.Fprintf(os.Stderr, "etcd: ready, serving clients on %s\n", cu.String())
	case <-time.After(60 * time.Second):
		e.Server.Stop()
		fmt.Fprintln(os.Stderr, "etcd: server took too long to become ready")
		os.Exit(1)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case s := <-sig:
		fmt.Fprintf(os.Stderr, "etcd: %v, shutting down\n", s)
		e.Close()
		os.Exit(0)
	case err := <-e.Err():
		fmt.Fprintf(os.Stderr, "etcd: %v\n", err)
		e.Close()
		os.Exit(1)
	}
}
