// Command testpod is the program of the test node's own image (FROM scratch, built by
// test/kube/build.sh, packed by test/kube/oci.ts). test/e2e/node.test.ts runs it in Pods to prove
// what the node does; every line it prints is one JSON object, read back through pods/log.
//
//	testpod serve [--listen :8080] [--config FILE] [--get API-PATH] [--term-exit-code N]
//	    Prints what the container sees (uid, gid, capabilities, no_new_privs, seccomp, whether / is
//	    writable, the emptyDir at /tmp, the ConfigMap file), then reads the API server with the
//	    in-cluster config (KUBERNETES_SERVICE_HOST/PORT, the projected ServiceAccount token and
//	    ca.crt): a SelfSubjectReview (who am I) and a GET of API-PATH, retried until they succeed.
//	    Serves /healthz (always 200), /readyz (200 once the API reads succeeded) and /metrics (how
//	    often each path was requested, by User-Agent). On SIGTERM it prints that, writes it to
//	    /dev/termination-log (the kubelet's termination message) and exits with N (default 42).
//	testpod oom [--step-mib N]
//	    Allocates and touches N MiB (default 4) at a time, printing the total, until it is killed.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"

var outMu sync.Mutex

// say prints one JSON line: {"msg": msg, ...fields}.
func say(msg string, fields map[string]any) {
	line := map[string]any{"msg": msg, "time": time.Now().UTC().Format(time.RFC3339Nano)}
	for k, v := range fields {
		line[k] = v
	}
	b, err := json.Marshal(line)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"msg":"marshal error","error":%q}`, err.Error()))
	}
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testpod serve|oom [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "oom":
		oom(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "testpod: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
}

// statusFields returns the named lines of /proc/self/status.
func statusFields(names ...string) map[string]any {
	out := map[string]any{}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		out["error"] = err.Error()
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		for _, n := range names {
			if k == n {
				out[n] = strings.TrimSpace(v)
			}
		}
	}
	return out
}

// tryWrite reports whether a file can be created at path ("ok" or the error).
func tryWrite(path string) string {
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		return err.Error()
	}
	if err := os.Remove(path); err != nil {
		return "written, remove failed: " + err.Error()
	}
	return "ok"
}

func describe(configFile string) {
	f := statusFields("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")
	f["uid"] = os.Getuid()
	f["euid"] = os.Geteuid()
	f["gid"] = os.Getgid()
	groups, _ := os.Getgroups()
	f["groups"] = groups
	f["pid"] = os.Getpid()
	f["rootfs_write"] = tryWrite("/testpod-write-probe")
	f["tmp_write"] = tryWrite("/tmp/testpod-write-probe")
	if configFile != "" {
		if b, err := os.ReadFile(configFile); err != nil {
			f["config_error"] = err.Error()
		} else {
			f["config"] = string(b)
		}
	}
	say("container", f)
}

type apiClient struct {
	base  string
	token string
	http  *http.Client
}

// inCluster builds a client the way client-go's rest.InClusterConfig does: the Service address from
// the environment, the projected token and the cluster CA from the ServiceAccount volume.
func inCluster() (*apiClient, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("KUBERNETES_SERVICE_HOST/PORT not set")
	}
	token, err := os.ReadFile(saDir + "/token")
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(saDir + "/ca.crt")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("no certificate in %s/ca.crt", saDir)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &apiClient{
		base:  "https://" + net.JoinHostPort(host, port),
		token: strings.TrimSpace(string(token)),
		http:  &http.Client{Transport: tr, Timeout: 10 * time.Second},
	}, nil
}

func (c *apiClient) do(method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// readAPI does the SelfSubjectReview and the GET, retrying each until it gets an answer (the
// Pod's network may come up a moment after the container starts).
func readAPI(getPath string) {
	var c *apiClient
	for attempt := 1; ; attempt++ {
		var err error
		if c, err = inCluster(); err == nil {
			break
		}
		say("in-cluster config failed", map[string]any{"attempt": attempt, "error": err.Error()})
		time.Sleep(time.Second)
	}
	say("in-cluster config", map[string]any{"server": c.base})
	call := func(what, method, path string, body []byte) (int, []byte) {
		for attempt := 1; ; attempt++ {
			status, b, err := c.do(method, path, body)
			if err == nil {
				return status, b
			}
			say(what+" failed", map[string]any{"attempt": attempt, "error": err.Error()})
			time.Sleep(time.Second)
		}
	}
	review := []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	status, b := call("whoami", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", review)
	var ssr struct {
		Status struct {
			UserInfo struct {
				Username string   `json:"username"`
				Groups   []string `json:"groups"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	_ = json.Unmarshal(b, &ssr)
	say("whoami", map[string]any{
		"status":   status,
		"username": ssr.Status.UserInfo.Username,
		"groups":   ssr.Status.UserInfo.Groups,
	})
	if getPath != "" {
		status, b = call("get", "GET", getPath, nil)
		var obj any
		if json.Unmarshal(b, &obj) != nil {
			obj = string(b)
		}
		say("get", map[string]any{"path": getPath, "status": status, "object": obj})
	}
}

type counters struct {
	mu sync.Mutex
	n  map[[2]string]int
}

func (c *counters) inc(path, agent string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[[2]string{path, agent}]++
}

func (c *counters) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([][2]string, 0, len(c.n))
	for k := range c.n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	var sb strings.Builder
	sb.WriteString("# TYPE testpod_requests_total counter\n")
	for _, k := range keys {
		fmt.Fprintf(&sb, "testpod_requests_total{path=%q,agent=%q} %d\n", k[0], k[1], c.n[k])
	}
	return sb.String()
}

func serve(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	listen := fs.String("listen", ":8080", "address for /healthz, /readyz and /metrics")
	configFile := fs.String("config", "", "file to print (e.g. from a ConfigMap volume)")
	getPath := fs.String("get", "", "API path to GET with the ServiceAccount's token")
	termExit := fs.Int("term-exit-code", 42, "exit code after SIGTERM")
	_ = fs.Parse(args)

	describe(*configFile)

	isReady := make(chan struct{})
	go func() {
		readAPI(*getPath)
		close(isReady)
	}()

	hits := &counters{n: map[[2]string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		hits.inc("/healthz", r.UserAgent())
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		hits.inc("/readyz", r.UserAgent())
		select {
		case <-isReady:
			io.WriteString(w, "ok\n")
		default:
			http.Error(w, "API not read yet", http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		hits.inc("/metrics", r.UserAgent())
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		io.WriteString(w, hits.text())
	})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		say("listen failed", map[string]any{"error": err.Error()})
		os.Exit(1)
	}
	say("listening", map[string]any{"address": ln.Addr().String()})
	go func() {
		if err := http.Serve(ln, mux); err != nil {
			say("serve failed", map[string]any{"error": err.Error()})
			os.Exit(1)
		}
	}()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	s := <-signals
	say("signal", map[string]any{"signal": s.String(), "exit_code": *termExit})
	// The kubelet reports this file's content as the container's termination message.
	_ = os.WriteFile("/dev/termination-log", []byte("testpod: got "+s.String()+"\n"), 0o644)
	os.Exit(*termExit)
}

func oom(args []string) {
	fs := flag.NewFlagSet("oom", flag.ExitOnError)
	step := fs.Int("step-mib", 4, "MiB to allocate per step")
	_ = fs.Parse(args)
	var held [][]byte
	for total := *step; ; total += *step {
		b := make([]byte, *step<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		held = append(held, b)
		say("allocated", map[string]any{"mib": total})
		time.Sleep(20 * time.Millisecond)
	}
}
