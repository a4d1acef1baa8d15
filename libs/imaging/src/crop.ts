// Cropping is one of the fingerprint library's RGB helpers: it crops upright copies of queries too, and cannot depend on
// this library.
export { cropRgb as cropImage } from '@loupe/fingerprint';
