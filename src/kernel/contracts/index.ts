export * from './format';
export * from './limits';
export * from './plugin';
export * from './query';
export * from './records';
export * from './tokens';
export * from './tool';
export * from './scan';
