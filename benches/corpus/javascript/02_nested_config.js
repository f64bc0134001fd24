const config = {
  app: { name: "inventory-service", version: "2.4.1" },
  server: {
    host: "0.0.0.0",
    port: 8080,
    tls: { enabled: true, cert: { path: "/etc/certs/app.pem", rotateDays: 90 } },
  },
  database: {
    primary: { host: "db1.internal", port: 5432, pool: { min: 2, max: 10 } },
    replicas: [
      { host: "db2.internal", port: 5432 },
      { host: "db3.internal", port: 5432, lag: { maxSeconds: 5 } },
    ],
  },
  features: ["search", "export", "audit-log"],
};

console.log(config);
console.log("---");
console.log(config.server.tls);
console.log(config.database.replicas);

function getPath(obj, path) {
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

for (const p of ["server.port", "server.tls.cert.rotateDays", "database.replicas.1.lag", "cache.ttl"]) {
  console.log(p.padEnd(28), getPath(config, p));
}

const overrides = { server: { port: 9090 }, features: ["search"] };
const merged = { ...config, server: { ...config.server, ...overrides.server }, features: overrides.features };
console.log(merged.server, merged.features);
