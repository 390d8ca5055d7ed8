// A plain JSON codec for the storage tests (kube's --storage-media-type=application/json
// layout: the object as JSON, no envelope). Stands in until the tests move to H1's codec.ts.

import type { KObject } from '../../../main/apiserver/api/object';
import type { Codec } from '../../../main/apiserver/storage/interface';

export const jsonTestCodec: Codec = {
  mediaType: 'application/json',
  encode(obj: KObject): Uint8Array {
    const metadata = { ...obj.metadata };
    delete metadata.resourceVersion;
    delete metadata.selfLink;
    return Buffer.from(JSON.stringify({ ...obj, metadata }));
  },
  decode(data: Uint8Array): KObject {
    return JSON.parse(Buffer.from(data).toString('utf8')) as KObject;
  },
};
