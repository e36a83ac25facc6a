// Command flux-gc applies a set of manifests and later garbage-collects them the way Flux's
// kustomize-controller does for one Kustomization, with Flux's own library for both:
// github.com/fluxcd/pkg/ssa (the module kustomize-controller applies and deletes with).
//
//	flux-gc apply  -kubeconfig K -name N -namespace NS -inventory FILE manifest.yaml...
//	flux-gc delete -kubeconfig K -name N -namespace NS -inventory FILE
//
// apply: reads the manifests, normalizes them, sets the Kustomization's owner labels and applies
// them with ResourceManager.ApplyAllStaged, with the apply options kustomize-controller sets
// (internal/controller/kustomization_controller.go, apply()); it writes the applied objects'
// identities to FILE, as the Kustomization's status.inventory keeps them.
//
// delete: what kustomize-controller's finalizer does when a Kustomization with prune enabled (and
// the default deletionPolicy, MirrorPrune) is deleted (finalize() and deleteObjects() in the same
// file): the inventory's objects, deleted with ResourceManager.DeleteAll, propagation Background,
// only those carrying the Kustomization's owner labels, none carrying
// kustomize.toolkit.fluxcd.io/prune: disabled, reconcile: disabled or ssa: ignore. It prints the
// change set as JSON on stdout. The decision to garbage-collect at all (prune on, not suspended) is
// the caller's: this command is what happens once it is made.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/normalize"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
)

// kustomize-controller's field manager and API group (its owner labels are <group>/name and
// <group>/namespace).
const (
	controllerName = "kustomize-controller"
	group          = "kustomize.toolkit.fluxcd.io"
)

// entry is one inventory item.
type entry struct {
	Group     string `json:"group"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

type result struct {
	Subject string `json:"subject"`
	Action  string `json:"action"`
}

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: flux-gc apply|delete -kubeconfig K -name N -namespace NS -inventory FILE [manifest...]"))
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the target cluster")
	name := fs.String("name", "", "name of the Kustomization")
	namespace := fs.String("namespace", "flux-system", "namespace of the Kustomization")
	inventory := fs.String("inventory", "", "inventory file (written by apply, read by delete)")
	_ = fs.Parse(os.Args[2:])
	if *kubeconfig == "" || *name == "" || *inventory == "" {
		fail(fmt.Errorf("-kubeconfig, -name and -inventory are required"))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	kubeClient, poller, err := clients(cfg)
	if err != nil {
		fail(err)
	}
	manager := ssa.NewResourceManager(kubeClient, poller, ssa.Owner{Field: controllerName, Group: group})

	switch cmd {
	case "apply":
		err = apply(ctx, manager, *name, *namespace, *inventory, fs.Args())
	case "delete":
		err = remove(ctx, manager, *name, *namespace, *inventory)
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if err != nil {
		fail(err)
	}
}

func clients(cfg *rest.Config) (client.Client, *polling.StatusPoller, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, nil, err
	}
	c, err := client.New(cfg, client.Options{Mapper: mapper})
	if err != nil {
		return nil, nil, err
	}
	return c, polling.NewStatusPoller(c, mapper, polling.Options{}), nil
}

func apply(ctx context.Context, manager *ssa.ResourceManager, name, namespace, inventory string, files []string) error {
	var objects []*unstructured.Unstructured
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return err
		}
		objs, err := ssautil.ReadObjects(r)
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		objects = append(objects, objs...)
	}
	if err := normalize.UnstructuredList(objects); err != nil {
		return err
	}
	manager.SetOwnerLabels(objects, name, namespace)

	opts := ssa.DefaultApplyOptions()
	opts.ExclusionSelector = map[string]string{group + "/reconcile": "disabled", group + "/ssa": "Ignore"}
	opts.IfNotPresentSelector = map[string]string{group + "/ssa": "IfNotPresent"}
	opts.ForceSelector = map[string]string{group + "/force": "enabled"}
	opts.Cleanup = ssa.ApplyCleanupOptions{
		Annotations: []string{
			"kubectl.kubernetes.io/last-applied-configuration",
			group + "/checksum",
			"fluxcd.io/sync-checksum",
		},
		Labels: []string{"fluxcd.io/sync-gc-mark"},
		FieldManagers: []ssa.FieldManager{
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationApply},
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationUpdate},
			{Name: "before-first-apply", OperationType: metav1.ManagedFieldsOperationUpdate},
			{Name: controllerName, OperationType: metav1.ManagedFieldsOperationUpdate},
		},
		Exclusions: map[string]string{group + "/ssa": "Merge"},
	}
	changeSet, err := manager.ApplyAllStaged(ctx, objects, opts)
	if err != nil {
		return err
	}
	var inv []entry
	for _, e := range changeSet.Entries {
		inv = append(inv, entry{
			Group:     e.ObjMetadata.GroupKind.Group,
			Version:   e.GroupVersion,
			Kind:      e.ObjMetadata.GroupKind.Kind,
			Namespace: e.ObjMetadata.Namespace,
			Name:      e.ObjMetadata.Name,
		})
	}
	sort.Slice(inv, func(i, j int) bool { return fmt.Sprint(inv[i]) < fmt.Sprint(inv[j]) })
	data, err := json.MarshalIndent(inv, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(inventory, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return print(changeSet)
}

func remove(ctx context.Context, manager *ssa.ResourceManager, name, namespace, inventory string) error {
	data, err := os.ReadFile(inventory)
	if err != nil {
		return err
	}
	var inv []entry
	if err := json.Unmarshal(data, &inv); err != nil {
		return err
	}
	// As kustomize-controller's inventory.List: identities only, the live objects are read by Delete.
	objects := make([]*unstructured.Unstructured, 0, len(inv))
	for _, e := range inv {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: e.Group, Version: e.Version, Kind: e.Kind})
		u.SetNamespace(e.Namespace)
		u.SetName(e.Name)
		objects = append(objects, u)
	}
	changeSet, err := manager.DeleteAll(ctx, objects, ssa.DeleteOptions{
		PropagationPolicy: metav1.DeletePropagationBackground,
		Inclusions:        manager.GetOwnerLabels(name, namespace),
		Exclusions: map[string]string{
			group + "/prune":     "disabled",
			group + "/reconcile": "disabled",
			group + "/ssa":       "Ignore",
		},
	})
	if perr := print(changeSet); perr != nil && err == nil {
		err = perr
	}
	return err
}

func print(cs *ssa.ChangeSet) error {
	out := []result{}
	if cs != nil {
		for _, e := range cs.Entries {
			out = append(out, result{Subject: e.Subject, Action: string(e.Action)})
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Println(string(data))
	return err
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "flux-gc:", err)
	os.Exit(1)
}
