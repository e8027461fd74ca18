/**
 * Validation with two Ajv instances: query strings and path parameters are text, so they
 * are coerced to the schema's types (and unknown parameters dropped, so they cannot
 * split the request cache); bodies are JSON and must match their schema as sent.
 */
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyError } from 'fastify';
import { ApiError, errors } from './errors.js';

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = (addFormatsModule as any).default ?? addFormatsModule;

const queryAjv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: 'all', allErrors: false, strict: false });
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, strict: false });
addFormats(queryAjv);
addFormats(bodyAjv);

export function compileValidator({ schema, httpPart }: { schema: any; httpPart?: string }) {
  return (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema);
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, any>;
}

function parameterName(issue: AjvIssue): string {
  if (issue.keyword === 'required') return String(issue.params.missingProperty);
  const path = issue.instancePath.replace(/^\//, '').split('/')[0];
  return path || 'request';
}

function bodyMessage(issue: AjvIssue): string {
  const where = issue.instancePath === '' ? 'body' : `body${issue.instancePath.replace(/\//g, '.')}`;
  if (issue.keyword === 'required') return `${where}.${issue.params.missingProperty} is required`;
  if (issue.keyword === 'additionalProperties') return `${where}.${issue.params.additionalProperty} is not allowed`;
  return `${where} ${issue.message ?? 'is invalid'}`;
}

/** Turns a Fastify validation failure into the contract's 422 error. */
export function validationError(err: FastifyError & { validation?: AjvIssue[]; validationContext?: string }): ApiError {
  const issues = err.validation ?? [];
  if (err.validationContext === 'body') return errors.invalidBody(issues.map(bodyMessage).slice(0, 50));
  return errors.invalidParameter(issues.length > 0 ? parameterName(issues[0]) : 'request');
}
