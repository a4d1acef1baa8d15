export { CollectionImages } from './collection-images';
export { ConsoleModule } from './console.module';
