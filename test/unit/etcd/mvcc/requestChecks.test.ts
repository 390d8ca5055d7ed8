import { describe, expect, it } from 'vitest';
import {
  CompareResult,
  CompareTarget,
  checkDeleteRequest,
  checkPutRequest,
  checkRangeRequest,
  checkTxnRequest,
  type RequestOp,
  type TxnRequest,
} from '../../../../main/etcd/mvcc/index';
import { cmp, delReq, op, putReq, rangeReq, txnReq } from './helpers';

const DUP = 'etcdserver: duplicate key given in txn request';

describe('single request checks', () => {
  it.each([
    { name: 'range with empty key', run: () => checkRangeRequest(rangeReq('')), err: 'etcdserver: key is not provided' },
    { name: 'put with empty key', run: () => checkPutRequest(putReq('', 'v')), err: 'etcdserver: key is not provided' },
    { name: 'put ignoreValue with value', run: () => checkPutRequest(putReq('k', 'v', { ignoreValue: true })), err: 'etcdserver: value is provided' },
    { name: 'put ignoreLease with lease', run: () => checkPutRequest(putReq('k', '', { ignoreLease: true, lease: 1n })), err: 'etcdserver: lease is provided' },
    { name: 'delete with empty key', run: () => checkDeleteRequest(delReq('')), err: 'etcdserver: key is not provided' },
  ])('$name', ({ run, err }) => {
    expect(run).toThrow(err);
  });

  it.each([
    { name: 'range', run: () => checkRangeRequest(rangeReq('k')) },
    { name: 'put ignoreValue without value', run: () => checkPutRequest(putReq('k', '', { ignoreValue: true })) },
    { name: 'put ignoreLease without lease', run: () => checkPutRequest(putReq('k', 'v', { ignoreLease: true })) },
    { name: 'delete', run: () => checkDeleteRequest(delReq('k', 'z')) },
  ])('accepts $name', ({ run }) => {
    expect(run).not.toThrow();
  });
});

const puts = (n: number): RequestOp[] => Array.from({ length: n }, (_, i) => op.put(`k${i}`, 'v'));
const nested = (success: RequestOp[], failure: RequestOp[] = []): RequestOp => op.txn(txnReq([], success, failure));

const txnCases: { name: string; txn: TxnRequest; err?: string }[] = [
  { name: '128 ops is fine', txn: txnReq([], puts(128)) },
  { name: '129 success ops', txn: txnReq([], puts(129)), err: 'etcdserver: too many operations in txn request' },
  { name: '129 failure ops', txn: txnReq([], [], puts(129)), err: 'etcdserver: too many operations in txn request' },
  {
    name: '129 compares',
    txn: txnReq(Array.from({ length: 129 }, () => cmp('a', CompareTarget.Version, CompareResult.Equal, {})), []),
    err: 'etcdserver: too many operations in txn request',
  },
  { name: 'nested txn gets the remaining budget', txn: txnReq([], [...puts(100), nested(puts(29))]), err: 'etcdserver: too many operations in txn request' },
  { name: 'nested txn within the remaining budget', txn: txnReq([], [...puts(100), nested([op.put('x', '1')])]) },
  { name: 'compare with empty key', txn: txnReq([cmp('', CompareTarget.Version, CompareResult.Equal, {})], []), err: 'etcdserver: key is not provided' },
  { name: 'empty op', txn: txnReq([], [{} as RequestOp]), err: 'etcdserver: key not found' },
  { name: 'op with empty key', txn: txnReq([], [op.get('')]), err: 'etcdserver: key is not provided' },
  { name: 'nested op check', txn: txnReq([], [nested([op.put('k', 'v', { ignoreValue: true })])]), err: 'etcdserver: value is provided' },
  { name: 'same key put twice', txn: txnReq([], [op.put('a', '1'), op.put('a', '2')]), err: DUP },
  { name: 'put inside a deleted range', txn: txnReq([], [op.del('a', 'c'), op.put('b', '1')]), err: DUP },
  { name: 'put of a deleted key', txn: txnReq([], [op.put('a', '1'), op.del('a')]), err: DUP },
  { name: 'put at the end of a deleted range is outside', txn: txnReq([], [op.del('a', 'c'), op.put('c', '1')]) },
  { name: 'put under a delete-from-key is not caught (as etcd 3.4)', txn: txnReq([], [op.del('a', '\0'), op.put('b', '1')]) },
  { name: 'then and else may overlap', txn: txnReq([], [op.put('a', '1')], [op.put('a', '2')]) },
  { name: 'two deletes may overlap', txn: txnReq([], [op.del('a', 'c'), op.del('b')]) },
  { name: 'ranges do not count', txn: txnReq([], [op.get('a'), op.put('a', '1')]) },
  { name: 'nested put duplicates an outer put', txn: txnReq([], [op.put('a', '1'), nested([op.put('a', '2')])]), err: DUP },
  { name: 'nested put inside an outer delete', txn: txnReq([], [op.del('a', 'z'), nested([], [op.put('m', '2')])]), err: DUP },
  { name: 'outer put inside a nested delete', txn: txnReq([], [nested([op.del('a', 'z')]), op.put('m', '2')]), err: DUP },
  { name: 'nested then/else overlap is allowed', txn: txnReq([], [nested([op.put('a', '1')], [op.put('a', '2')])]) },
  { name: 'two nested txns putting the same key', txn: txnReq([], [nested([op.put('a', '1')]), nested([], [op.put('a', '2')])]), err: DUP },
  { name: 'nested else puts a key an earlier nested then put', txn: txnReq([], [nested([op.put('a', '1')]), nested([op.put('b', '1')], [op.put('a', '2')])]), err: DUP },
  { name: 'duplicates across then/else of the outer txn are fine', txn: txnReq([], [op.del('a', 'z')], [op.put('m', '1')]) },
  { name: 'deep nesting', txn: txnReq([], [op.put('a', '1'), nested([nested([nested([op.put('a', '2')])])])]), err: DUP },
];

describe('checkTxnRequest', () => {
  it.each(txnCases)('$name', ({ txn, err }) => {
    if (err) expect(() => checkTxnRequest(txn, 128)).toThrow(err);
    else expect(() => checkTxnRequest(txn, 128)).not.toThrow();
  });
});
