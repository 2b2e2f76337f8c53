/** Writes the HAProxyTemplateConfig CRD the chart ships, generated from libs/core's classes. */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { crdYaml } from '../src/lib/config/crd-yaml.js';

const target = process.argv[2] ?? 'helm/haptic/crds/haproxytemplateconfigs.yaml';
writeFileSync(target, crdYaml());
console.log(`wrote ${target}`);
