/**
 * The token Secret through External Secrets: leader `hub` and members `east` and `west`. Each member's
 * SecretStore authenticates to the leader with short-lived tokens of its own ServiceAccount (the
 * leader trusts each member's ServiceAccount issuer and maps it to `oidc:<member>:…`), and trusts
 * the leader through the CA certificate written here (a throwaway self-signed CA: public, no key).
 */
import type { ClusterSetProps } from 'clusterset';

const HUB_CA = `-----BEGIN CERTIFICATE-----
MIIBeDCCAR+gAwIBAgIUWK0375iVhMu3DQrqscK+HwBJ2xUwCgYIKoZIzj0EAwIw
ETEPMA0GA1UEAwwGaHViLWNhMCAXDTI2MTIwMjE0MTgxOFoYDzIxMjYxMTA4MTQx
ODE4WjARMQ8wDQYDVQQDDAZodWItY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AARtqNYQFeKfmQ+FcPO4UGcX3zFJ5yHcyYH/ms/q7QBtVlHWVKRkBU34f4FUo+6k
0oCvXSmDrtAnR3qVlzookewto1MwUTAdBgNVHQ4EFgQUaT2lwr2pBkqLLpXSXoty
59H9ERwwHwYDVR0jBBgwFoAUaT2lwr2pBkqLLpXSXoty59H9ERwwDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAQm9sP+vH1mXM3Rqu0JzQRWatd7spW
urCTeJ9sSmIZowIgYIM9F4dqUUkXt6+TnWx6qj+dSxdp6VsgAHj3qdiqQB8=
-----END CERTIFICATE-----
`;

const model: ClusterSetProps = {
  clusterSetId: 'eso-set',
  leader: 'hub',
  members: ['east', 'west'],
  clusters: [
    { id: 'hub', apiServer: 'https://hub.example.com:6443', serviceCIDR: '10.100.0.0/16' },
    { id: 'east', apiServer: 'https://east.example.com:6443', serviceCIDR: '10.101.0.0/16' },
    { id: 'west', apiServer: 'https://west.example.com:6443', serviceCIDR: '10.102.0.0/16' },
  ],
  services: [
    { namespace: 'shop', name: 'cart', ports: [{ name: 'http', port: 8080 }], exportedFrom: ['east'] },
  ],
  secrets: {
    externalSecrets: {
      leaderCA: { pem: HUB_CA },
      auth: { serviceAccount: { name: 'antrea-mc-token-reader', audiences: ['hub'] } },
      leaderUsername: 'oidc:{cluster}:system:serviceaccount:kube-system:antrea-mc-token-reader',
    },
  },
};

export default model;
