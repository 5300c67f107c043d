import assert from 'node:assert/strict';
import { fieldName, pathParamNames, toFieldErrors } from '../../src/http/validation-errors.js';

describe('validator error translation', () => {
  it('names body fields with dots and query/header fields by name', () => {
    assert.equal(fieldName('/body/email/address'), 'email.address');
    assert.equal(fieldName('/query/username'), 'username');
    assert.equal(fieldName('/headers/idempotency-key'), 'idempotency-key');
    assert.equal(fieldName('/body'), 'body');
  });

  it('maps keywords to codes and drops if-errors', () => {
    assert.deepEqual({ ...toFieldErrors([
      { path: '/body/username', errorCode: 'maxLength.openapi.validation' },
      { path: '/body/email', errorCode: 'required.openapi.validation' },
      { path: '/body', errorCode: 'if.openapi.validation' },
      { path: '/body/x', errorCode: 'additionalProperties.openapi.validation' },
      { path: '/body/email', errorCode: 'false schema.openapi.validation' },
    ]) }, { username: ['TOO_LONG'], email: ['REQUIRED', 'NOT_ALLOWED'], x: ['UNKNOWN_FIELD'] });
  });

  it('recognises errors that are only about path parameters', () => {
    assert.deepEqual(pathParamNames([{ path: '/params/account_id' }]), ['account_id']);
    assert.deepEqual(pathParamNames([{ path: '/params/account_id' }, { path: '/body/x' }]), []);
  });
});
